package io.gridlimit.micronaut.testapp;

import io.gridlimit.micronaut.filter.RateLimitCost;
import io.gridlimit.micronaut.filter.RateLimited;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
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
    private final RateLimitCost cost;

    /** @param cost states actual costs */
    public TestController(RateLimitCost cost) {
        this.cost = cost;
    }

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

    /**
     * States the actual cost through the response header the filter strips.
     *
     * @param n the actual cost
     * @return "metered" with {@code GridLimit-Actual-Cost: n}
     */
    @Get("/metered/header/{n}")
    public HttpResponse<String> meteredByHeader(@PathVariable String n) {
        return HttpResponse.ok("metered").header(RateLimitCost.ACTUAL_COST_HEADER, n);
    }

    /**
     * States the actual cost through the bean, then answers.
     *
     * @param request the request
     * @param n the actual cost
     * @return "metered" once the settle answered
     */
    @Get("/metered/bean/{n}")
    public java.util.concurrent.CompletableFuture<String> meteredByBean(HttpRequest<?> request,
                                                                       @PathVariable long n) {
        return cost.settle(request, n).toCompletableFuture().thenApply(s -> "metered " + s.get(0).status()
                .wireName());
    }

    /**
     * States the actual cost of the current request (no request parameter) twice: the second is refused.
     *
     * @param n the actual cost
     * @return "settled once" when the second statement was refused
     */
    @Get("/metered/twice/{n}")
    public String meteredTwice(@PathVariable long n) {
        cost.settle(n);
        try {
            cost.settle(n);
            return "settled twice";
        } catch (IllegalStateException e) {
            return "settled once: " + e.getMessage();
        }
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
