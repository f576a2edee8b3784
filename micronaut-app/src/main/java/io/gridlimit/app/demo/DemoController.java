package io.gridlimit.app.demo;

import io.micronaut.http.MediaType;
import io.gridlimit.app.beans.ServiceBeans;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Produces;

/**
 * The demo endpoint the out-of-the-box configuration protects: {@code GET /demo/hello} under the {@code demo}
 * policy (sliding window log, 5 requests per 10 s per client IP; see {@code application.yml}).
 *
 * <p>The controller itself knows nothing of rate limiting: GridLimit's server filter admits or denies the request
 * before it gets here and adds the {@code RateLimit-*} headers. 20 quick requests from one client give 5 answers
 * 200 and then 15 answers 429.
 */
@Requires(property = ServiceBeans.ENABLED, value = "true")
@Controller("/demo")
public class DemoController {
    /** The greeting body, ending with a newline so that curl output stays readable. */
    static final String GREETING = "Hello from GridLimit\n";

    /**
     * Greets the caller.
     *
     * @return the plain-text greeting {@value #GREETING}
     */
    @Get("/hello")
    @Produces(MediaType.TEXT_PLAIN)
    public String hello() {
        return GREETING;
    }
}
