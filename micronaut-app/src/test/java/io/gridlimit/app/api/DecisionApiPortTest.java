package io.gridlimit.app.api;

import io.gridlimit.micronaut.support.Ports;
import io.gridlimit.app.support.Http;
import io.gridlimit.app.support.ServiceProperties;
import io.micronaut.context.ApplicationContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.client.HttpClient;
import io.micronaut.runtime.server.EmbeddedServer;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The decision API and the management endpoints on a second port ({@code endpoints.all.port} and
 * {@code gridlimit.decision-api.port}): there they answer; on the public port the API answers 404, while the
 * demo route keeps working.
 */
class DecisionApiPortTest {
    @Test
    void theApiAloneOnASecondPort() throws Exception {
        int apiPort = Ports.freePort();
        Map<String, Object> p = ServiceProperties.standalone();
        p.put("gridlimit.decision-api.port", apiPort);
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, p);
             HttpClient publicClient = HttpClient.create(server.getURL());
             HttpClient internalClient = HttpClient.create(new URL("http://127.0.0.1:" + apiPort))) {
            String check = "{\"policy\":\"demo\",\"key\":\"user:api-port\"}";
            assertThat(Http.exchange(publicClient.toBlocking(), HttpRequest.POST("/v1/ratelimit/check", check)
                    .contentType(MediaType.APPLICATION_JSON)).code()).isEqualTo(404);
            HttpResponse<String> inside = Http.exchange(internalClient.toBlocking(),
                    HttpRequest.POST("/v1/ratelimit/check/batch", "{\"checks\":[" + check + "]}")
                            .contentType(MediaType.APPLICATION_JSON));
            assertThat(inside.code()).isEqualTo(200);
            assertThat(Http.body(inside)).isEqualTo("{\"decisions\":[{\"allowed\":true,\"limit\":5,\"remaining\":4,"
                    + "\"resetAfterMillis\":10001,\"retryAfterMillis\":null,\"policy\":\"demo\",\"band\":null}]}");
            // Problems keep their shape on the API port.
            HttpResponse<String> bad = Http.exchange(internalClient.toBlocking(),
                    HttpRequest.POST("/v1/ratelimit/check", "{").contentType(MediaType.APPLICATION_JSON));
            assertThat(Http.body(bad)).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Bad Request\","
                    + "\"status\":400,\"detail\":\"the request body is not valid JSON\"}");
        }
    }

    @Test
    void theApiAndTheManagementEndpointsShareASecondPort() throws Exception {
        int managementPort = Ports.freePort();
        Map<String, Object> p = ServiceProperties.standalone();
        p.put("endpoints.all.port", managementPort);
        p.put("gridlimit.decision-api.port", managementPort);
        try (EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class, p);
             HttpClient publicClient = HttpClient.create(server.getURL());
             HttpClient internalClient = HttpClient.create(new URL("http://127.0.0.1:" + managementPort))) {
            String check = "{\"policy\":\"demo\",\"key\":\"user:port\"}";
            HttpResponse<String> outside = Http.exchange(publicClient.toBlocking(),
                    HttpRequest.POST("/v1/ratelimit/check", check).contentType(MediaType.APPLICATION_JSON));
            assertThat(outside.code()).isEqualTo(404);
            assertThat(Http.body(outside)).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Not Found\","
                    + "\"status\":404,\"detail\":\"no decision API on this port\"}");

            HttpResponse<String> inside = Http.exchange(internalClient.toBlocking(),
                    HttpRequest.POST("/v1/ratelimit/check", check).contentType(MediaType.APPLICATION_JSON));
            assertThat(inside.code()).isEqualTo(200);
            assertThat(Http.body(inside)).isEqualTo("{\"allowed\":true,\"limit\":5,\"remaining\":4,"
                    + "\"resetAfterMillis\":10001,\"retryAfterMillis\":null,\"policy\":\"demo\",\"band\":null}");

            assertThat(Http.exchange(internalClient.toBlocking(), HttpRequest.GET("/health/liveness")).code())
                    .isEqualTo(200);
            assertThat(Http.exchange(publicClient.toBlocking(), HttpRequest.GET("/demo/hello")).code())
                    .isEqualTo(200);
        }
    }
}
