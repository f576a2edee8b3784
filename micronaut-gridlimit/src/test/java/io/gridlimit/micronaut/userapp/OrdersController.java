package io.gridlimit.micronaut.userapp;

import io.gridlimit.micronaut.filter.RateLimited;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Produces;

/**
 * A user's own controller in "someone's shop service": it knows GridLimit only through {@link RateLimited} on one
 * method; the GET routes are limited by configuration alone ({@code UserApplicationTest}).
 */
@Controller("/orders")
@Produces(MediaType.TEXT_PLAIN)
@Requires(property = "shop.orders.enabled", value = "true")
public class OrdersController {
    /**
     * @param id the order id
     * @return a description of the order
     */
    @Get("/{id}")
    public String order(@PathVariable String id) {
        return "order " + id;
    }

    /**
     * @param body the order
     * @return 201
     */
    @Post
    @RateLimited(policy = "orders-write", key = "header:X-User")
    public HttpResponse<String> place(@Body String body) {
        return HttpResponse.created("placed");
    }
}
