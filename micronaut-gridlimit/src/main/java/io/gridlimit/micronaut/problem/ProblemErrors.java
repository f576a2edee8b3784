package io.gridlimit.micronaut.problem;

import io.gridlimit.micronaut.config.HttpProperties;
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
 * Turns the error responses Micronaut writes itself into RFC 9457 problems ({@code application/problem+json}:
 * type, title, status, detail), never its own JSON with exception messages (docs/SPEC.md §5).
 *
 * <ul>
 *   <li>Always: a request whose header section exceeds {@code micronaut.server.netty.max-header-size} (8 KiB by
 *   default) answers 431 Request Header Fields Too Large (RFC 6585 §5) instead of Micronaut's 413, and a request line
 *   longer than {@code micronaut.server.netty.max-initial-line-length} (4 KiB by default) 414 URI Too Long
 *   (RFC 9110 §15.5.15).</li>
 *   <li>With {@value HttpProperties#PROBLEM_ERRORS_PROPERTY}{@code : true} (off by default, so that a user's own
 *   error handling stays theirs; on in the GridLimit service): every other error response Micronaut writes (404 no
 *   route, 405, 406, 413 body too large, 415, 400 for a parameter or body it cannot convert, such as
 *   {@code /health/<x>}, 500 for an exception no handler took, ...) keeps its status and its other headers
 *   ({@code Allow} of a 405) and gets a problem body whose title is the status's reason phrase and whose detail is a
 *   fixed sentence per status ({@link #detail(int)}): no exception message, class or enum name, no stack trace.</li>
 * </ul>
 *
 * <p>Where Micronaut writes them: its exception handlers (no route, conversion errors, status exceptions, bodies
 * over {@code micronaut.server.max-request-size}, Netty's decoder failures, unhandled exceptions) hand their error to
 * the application's {@link ErrorResponseProcessor}, without running HTTP filters for a request Netty failed to
 * decode. So this listener wraps whichever processor the application uses. A response an application builds itself
 * (an {@code @Error} handler, a controller's own 4xx) never passes here and is left as it is.
 * Thread-safe.
 */
@Singleton
public class ProblemErrors implements BeanCreatedEventListener<ErrorResponseProcessor<?>> {
    private final BeanProvider<ProblemResponses> problems;
    private final boolean everyError;

    /**
     * @param problems writes the problem body (looked up on first use)
     * @param properties {@code gridlimit.http}: whether every error becomes a problem
     */
    public ProblemErrors(BeanProvider<ProblemResponses> problems, HttpProperties properties) {
        this.problems = problems;
        this.everyError = properties.problemErrors();
    }

    @Override
    public ErrorResponseProcessor<?> onCreated(BeanCreatedEvent<ErrorResponseProcessor<?>> event) {
        ErrorResponseProcessor<?> delegate = event.getBean();
        return new ErrorResponseProcessor<Object>() {
            @Override
            @SuppressWarnings("unchecked")
            public MutableHttpResponse<Object> processResponse(ErrorContext context,
                                                               MutableHttpResponse<?> response) {
                MutableHttpResponse<Object> problem = tooLong(context.getRequest(), response.code());
                if (problem != null) {
                    return problem;
                }
                if (everyError) {
                    return problems.get().rewrite(response, Problem.of(response.code(), title(response.code()),
                            detail(response.code())));
                }
                return (MutableHttpResponse<Object>) delegate.processResponse(context, response);
            }
        };
    }

    /** The 414 or 431 of a request Netty failed to decode on its request line or header section, else null. */
    @SuppressWarnings("unchecked")
    private MutableHttpResponse<Object> tooLong(HttpRequest<?> request, int code) {
        if (code != HttpStatus.REQUEST_ENTITY_TOO_LARGE.getCode()) {
            return null;
        }
        if (requestLineTooLong(request)) {
            return (MutableHttpResponse<Object>) (MutableHttpResponse<?>) problems.get().write(
                    HttpStatus.REQUEST_URI_TOO_LONG, Problem.of(414, "URI Too Long", "The request line is longer than"
                            + " this server accepts (micronaut.server.netty.max-initial-line-length)."), Map.of());
        }
        if (headerSectionTooLarge(request)) {
            return (MutableHttpResponse<Object>) (MutableHttpResponse<?>) problems.get().write(
                    HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, Problem.of(431, "Request Header Fields Too Large",
                            "The request's header section is larger than this server accepts "
                                    + "(micronaut.server.netty.max-header-size)."), Map.of());
        }
        return null;
    }

    /** The status's reason phrase (RFC 9110 §15), e.g. {@code Not Found}. */
    private static String title(int status) {
        try {
            return HttpStatus.valueOf(status).getReason();
        } catch (IllegalArgumentException e) {
            return status >= 500 ? "Server Error" : "Client Error";
        }
    }

    /**
     * The fixed detail of an error Micronaut wrote itself.
     *
     * @param status the status code
     * @return a sentence that names no exception, class, enum or value
     */
    public static String detail(int status) {
        return switch (status) {
            case 400 -> "the request could not be read: a parameter, header or body is malformed";
            case 404 -> "no such resource";
            case 405 -> "the resource does not accept this method (see Allow)";
            case 406 -> "the resource has no representation the Accept header admits";
            case 413 -> "the request body is larger than the server accepts";
            case 415 -> "the resource does not accept the request body's Content-Type";
            case 500 -> "internal error";
            default -> status >= 500 ? "the server could not process the request"
                    : "the request could not be processed";
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
