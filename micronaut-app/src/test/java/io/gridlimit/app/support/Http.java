package io.gridlimit.app.support;

import io.micronaut.core.type.Argument;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.BlockingHttpClient;
import io.micronaut.http.client.exceptions.HttpClientResponseException;

/** Exchanges through Micronaut's blocking client, returning error responses instead of throwing them. */
public final class Http {
    private Http() {
    }

    /**
     * Sends a request and returns the response, whatever its status.
     *
     * @param client the blocking client
     * @param request the request
     * @return the response with its body as text (null when empty)
     */
    public static HttpResponse<String> exchange(BlockingHttpClient client, HttpRequest<?> request) {
        try {
            return client.exchange(request, Argument.STRING, Argument.STRING);
        } catch (HttpClientResponseException e) {
            @SuppressWarnings("unchecked")
            HttpResponse<String> response = (HttpResponse<String>) e.getResponse();
            return response;
        }
    }

    /**
     * The body of a response as text, also for error responses.
     *
     * @param response a response from {@link #exchange}
     * @return the body, or null when there is none
     */
    public static String body(HttpResponse<?> response) {
        return response.getBody(String.class).orElse(null);
    }
}
