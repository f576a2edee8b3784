package com.example.orders;

import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Produces;

/** The orders service's own routes; GridLimit limits {@code /orders/**} by configuration alone. */
@Controller
@Produces(MediaType.TEXT_PLAIN)
public class OrdersController {
    /**
     * @param id an order id
     * @return a description of the order
     */
    @Get("/orders/{id}")
    public String order(String id) {
        return "order " + id;
    }

    /** @return a route GridLimit does not limit */
    @Get("/catalog")
    public String catalog() {
        return "catalog";
    }
}
