package io.gridlimit.app;

import io.gridlimit.app.api.DecisionApiController;
import io.gridlimit.app.demo.DemoController;
import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service that depends on micronaut-app only for the integration does not set {@code gridlimit.service.enabled}:
 * it gets neither the demo controller nor the decision API (which would let anyone spend quotas). (The start-up
 * warm-up is the library's now, so every application has it.)
 */
class ServiceGatingTest {
    @Test
    void withoutTheServicePropertyNoServiceBeanExists() throws Exception {
        Map<String, Object> p = ServiceProperties.standalone();
        p.put(Application.SERVICE_PROPERTY, false);
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, p);
             HttpClient http = HttpClient.create(server.getURL())) {
            ApplicationContext ctx = server.getApplicationContext();
            assertThat(ctx.containsBean(DecisionApiController.class)).isFalse();
            assertThat(ctx.containsBean(DemoController.class)).isFalse();
            assertThat(Http.exchange(http.toBlocking(), HttpRequest.POST("/v1/ratelimit/check",
                    "{\"policy\":\"demo\",\"key\":\"k\"}").contentType(MediaType.APPLICATION_JSON)).code())
                    .isEqualTo(404);
            assertThat(Http.exchange(http.toBlocking(), HttpRequest.GET("/health/liveness")).code()).isEqualTo(200);
        }
    }
}
