package io.gridlimit.micronaut.testapp;

import io.gridlimit.micronaut.filter.RateLimited;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;

/** A controller whose {@link RateLimited} names no configured policy: its context must not boot. */
@Controller("/bad")
@Requires(property = "gridlimit-test.bad-annotation", value = "true")
public class BadAnnotationController {
    /** @return never served */
    @Get
    @RateLimited(policy = "no-such-policy", key = {"header:"})
    public String bad() {
        return "bad";
    }
}
