package io.gridlimit.micronaut.problem;

import io.micronaut.context.BeanProvider;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import io.micronaut.http.server.netty.NettyHttpRequest;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import jakarta.inject.Singleton;

import java.util.Map;

/**
 * Answers a request whose header section exceeds {@code micronaut.server.netty.max-header-size} (8 KiB by
 * default) with 431 Request Header Fields Too Large (RFC 6585 §5) and an {@code application/problem+json} body,
 * instead of Micronaut's 413 with its own JSON; a request line longer than
 * {@code micronaut.server.netty.max-initial-line-length} (4 KiB by default) likewise answers 414 URI Too Long
 * (RFC 9110 §15.5.15) with a problem body.
 *
 * <p>Where Micronaut raises it: Netty's HTTP decoder marks such a request with a failed decoder result whose cause
 * is a {@link TooLongHttpHeaderException}; Micronaut's {@code NettyRequestLifecycle} turns any
 * {@code TooLongFrameException} into a 413 status error, answered by a global {@code @Error(status = 413)} route
 * when the application has one, else by the application's {@link ErrorResponseProcessor}, without running HTTP
 * filters. So this listener wraps whichever {@link ErrorResponseProcessor} the application uses: only that case
 * (a 413 whose request failed decoding on its headers) is rewritten; every other error, including a 413 for a
 * body that is too large, reaches the application's processor unchanged. Thread-safe.
 */
@Singleton
public class HeaderTooLargeResponses implements BeanCreatedEventListener<ErrorResponseProcessor<?>> {
    private final BeanProvider<ProblemResponses> problems;

    /** @param problems writes the problem body (looked up on first use) */
    public HeaderTooLargeResponses(BeanProvider<ProblemResponses> problems) {
        this.problems = problems;
    }

    @Override
    public ErrorResponseProcessor<?> onCreated(BeanCreatedEvent<ErrorResponseProcessor<?>> event) {
        ErrorResponseProcessor<?> delegate = event.getBean();
        return new ErrorResponseProcessor<Object>() {
            @Override
            @SuppressWarnings("unchecked")
            public MutableHttpResponse<Object> processResponse(ErrorContext context,
                                                               MutableHttpResponse<?> response) {
                if (response.code() == HttpStatus.REQUEST_ENTITY_TOO_LARGE.getCode()
                        && requestLineTooLong(context.getRequest())) {
                    return (MutableHttpResponse<Object>) (MutableHttpResponse<?>) problems.get().write(
                            HttpStatus.REQUEST_URI_TOO_LONG, Problem.of(414, "URI Too Long", "The request line is "
                                    + "longer than this server accepts (micronaut.server.netty.max-initial-line-length)."),
                            Map.of());
                }
                if (response.code() == HttpStatus.REQUEST_ENTITY_TOO_LARGE.getCode()
                        && headerSectionTooLarge(context.getRequest())) {
                    return (MutableHttpResponse<Object>) (MutableHttpResponse<?>) problems.get().write(
                            HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, Problem.of(431,
                                    "Request Header Fields Too Large", "The request's header section is larger "
                                            + "than this server accepts (micronaut.server.netty.max-header-size)."),
                            Map.of());
                }
                return (MutableHttpResponse<Object>) delegate.processResponse(context, response);
            }
        };
    }

    /**
     * @param request a request
     * @return true when Netty failed to decode it because its request line was too long
     */
    static boolean requestLineTooLong(HttpRequest<?> request) {
        return request instanceof NettyHttpRequest<?> netty
                && netty.getNativeRequest().decoderResult().cause() instanceof TooLongHttpLineException;
    }

    /**
     * @param request a request
     * @return true when Netty failed to decode it because its header section was too large
     */
    static boolean headerSectionTooLarge(HttpRequest<?> request) {
        return request instanceof NettyHttpRequest<?> netty
                && netty.getNativeRequest().decoderResult().cause() instanceof TooLongHttpHeaderException;
    }
}
