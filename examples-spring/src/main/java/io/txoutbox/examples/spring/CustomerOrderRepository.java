package io.txoutbox.examples.spring;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data JPA repository of orders. */
public interface CustomerOrderRepository extends JpaRepository<CustomerOrder, String> {}
