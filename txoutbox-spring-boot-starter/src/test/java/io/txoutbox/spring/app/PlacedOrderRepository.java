package io.txoutbox.spring.app;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data JPA: the repository a service would really use. */
public interface PlacedOrderRepository extends JpaRepository<PlacedOrder, String> {}
