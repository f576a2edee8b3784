package io.gridlimit.bench.http;

import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Produces;

/** The measured route: a constant body, so that the route itself costs as little as possible. */
@Controller
@Produces(MediaType.TEXT_PLAIN)
public class HelloController {
    /** @return {@code hello} */
    @Get("/hello")
    public String hello() {
        return "hello";
    }
}
