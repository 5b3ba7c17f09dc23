package io.txoutbox.spring.modulith.shop;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A small modular shop (one module, {@code order}) whose order events are externalized through txoutbox. */
@SpringBootApplication
public class ShopApplication {}
