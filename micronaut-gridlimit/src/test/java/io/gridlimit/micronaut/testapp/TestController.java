package io.gridlimit.micronaut.testapp;

import io.gridlimit.micronaut.filter.RateLimited;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Produces;

/**
 * Endpoints of the filter tests; only in contexts with {@code gridlimit-test.controllers=true}. Which rules
 * protect them is in {@code application-gl-filter.yml}, except the {@link RateLimited} one.
 */
@Controller("/t")
@Produces(MediaType.TEXT_PLAIN)
@Requires(property = "gridlimit-test.controllers", value = "true")
public class TestController {
    /** @return "hello" */
    @Get("/hello")
    public String hello() {
        return "hello";
    }

    /** @return "api" */
    @Get("/api")
    public String api() {
        return "api";
    }

    /** @return "skip" */
    @Get("/skip")
    public String skip() {
        return "skip";
    }

    /** @return "tiered" */
    @Get("/tiered")
    public String tiered() {
        return "tiered";
    }

    /** @return "shadow" */
    @Get("/shadow")
    public String shadow() {
        return "shadow";
    }

    /** @return "multi" */
    @Get("/multi")
    public String multi() {
        return "multi";
    }

    /** @return "free" */
    @Get("/exempt/free")
    public String exemptFree() {
        return "free";
    }

    /** @return "limited" */
    @Get("/exempt/limited")
    public String exemptLimited() {
        return "limited";
    }

    /**
     * @param id any id
     * @return the id
     */
    @Get("/annotated/{id}")
    @RateLimited(policy = "annot", key = {"route", "client-ip"})
    public String annotated(@PathVariable String id) {
        return id;
    }
}
