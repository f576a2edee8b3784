package io.gridlimit.micronaut.netty;

import io.gridlimit.micronaut.config.GridLimitConfig;
import io.gridlimit.micronaut.config.HttpProperties;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.gridlimit.micronaut.problem.Problem;
import io.gridlimit.micronaut.problem.ProblemResponses;
import io.micrometer.core.instrument.Counter;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.http.netty.channel.ChannelPipelineCustomizer;
import io.micronaut.http.server.netty.NettyServerCustomizer;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;

import java.nio.charset.StandardCharsets;

/**
 * Cuts off slow clients: a connection whose request header section is not complete within
 * {@code gridlimit.http.header-timeout} (default {@value HttpProperties#DEFAULT_HEADER_TIMEOUT_TEXT}) is answered
 * {@code 408 Request Timeout} (RFC 9110 §15.5.9) with an {@code application/problem+json} body and
 * {@code Connection: close}, then closed, and counted in {@value GridLimitMetrics#HEADER_TIMEOUTS}
 * (docs/SPEC.md §5, §9). Without it a client trickling its header lines holds a connection for as long as it keeps
 * sending (Micronaut's idle timeout restarts with every byte).
 *
 * <p>Installed on every HTTP/1.1 connection of every listener of the server (the public port and any other, such
 * as the service's internal port) through Micronaut's pipeline customization: this bean registers a
 * {@link NettyServerCustomizer} on the server's {@link NettyServerCustomizer.Registry}; for each connection whose
 * pipeline has Micronaut's {@link HttpServerCodec} ({@value ChannelPipelineCustomizer#HANDLER_HTTP_SERVER_CODEC})
 * it adds the two handlers of {@link HeaderDeadlineHandler} around that codec. HTTP/2 connections (ALPN or h2c) are
 * left to Netty's HTTP/2 settings.
 *
 * <p>When the deadline runs: from the moment the connection is accepted for its first request, and for each later
 * request of a kept-alive connection from the first byte read after the previous exchange (request read and response
 * written): an idle kept-alive connection is the idle timeout's business, not this one's. The deadline ends when
 * Netty's decoder has the whole header section; a slow body or a slow handler is never cut. Timers are scheduled on
 * the connection's event loop, which nothing here ever blocks.
 *
 * <p>The same handler answers, in HTTP/1.1 and with {@code Connection: close}, a request Netty could not decode
 * (a request line or header section too long or malformed): Netty stands in for such a request with a
 * {@code GET /bad-request HTTP/1.0} of its own, and Micronaut writes every response in its request's version, so
 * the 400, 414 or 431 went out with an {@code HTTP/1.0} status line.
 *
 * <p>Created at boot ({@link Context}), after the configuration's check, where a deadline out of [1 ms, 1 h] stops
 * the application naming the property and the value. Thread-safe.
 */
@Context
public class HeaderDeadline implements BeanCreatedEventListener<NettyServerCustomizer.Registry> {
    /** Detail of the 408 problem. */
    public static final String DETAIL = "the request's header section was not complete within "
            + HttpProperties.HEADER_TIMEOUT_PROPERTY;

    private final long timeoutNanos;
    private final byte[] body;
    private final Counter timeouts;
    private final ProblemResponses problems;

    /**
     * @param properties {@code gridlimit.http}
     * @param checked the checked configuration: asked for so that this is created only once
     *     {@link io.gridlimit.micronaut.config.GridLimitConfigFactory} has checked {@code gridlimit.http} (a deadline
     *     out of range stops the boot there)
     * @param metrics counts connections cut off
     * @param problems writes the problem body and the {@code Date} header
     */
    public HeaderDeadline(HttpProperties properties, GridLimitConfig checked, GridLimitMetrics metrics,
                          ProblemResponses problems) {
        this.timeoutNanos = properties.headerTimeout().toNanos();
        this.body = problems.json(Problem.of(408, HttpResponseStatus.REQUEST_TIMEOUT.reasonPhrase(), DETAIL))
                .getBytes(StandardCharsets.UTF_8);
        this.timeouts = metrics.headerTimeouts();
        this.problems = problems;
    }

    /**
     * Registers the customizer on the server before it opens its listeners.
     *
     * @param event the server's customizer registry, being created
     * @return the same registry
     */
    @Override
    public NettyServerCustomizer.Registry onCreated(BeanCreatedEvent<NettyServerCustomizer.Registry> event) {
        NettyServerCustomizer.Registry registry = event.getBean();
        registry.register(new ServerCustomizer());
        return registry;
    }

    /** @return the header section deadline, in nanoseconds, in [1 ms, 1 h] */
    public long timeoutNanos() {
        return timeoutNanos;
    }

    /** A fresh 408 problem response (the caller's to write). */
    FullHttpResponse timeoutResponse() {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_TIMEOUT,
                Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, Problem.MEDIA_TYPE)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE)
                .set(HttpHeaderNames.DATE, problems.date());
        return r;
    }

    /** Counts one connection cut off. */
    void countTimeout() {
        timeouts.increment();
    }

    /** The server's root customizer: specialised once per listener, then once per connection. */
    private final class ServerCustomizer implements NettyServerCustomizer {
        @Override
        public NettyServerCustomizer specializeForChannel(Channel channel, ChannelRole role) {
            return switch (role) {
                case LISTENER -> this;
                case CONNECTION -> new ConnectionCustomizer(channel);
                default -> NOTHING;
            };
        }
    }

    /** Customizes nothing: HTTP/2 streams. */
    private static final NettyServerCustomizer NOTHING = new NettyServerCustomizer() {
        @Override
        public NettyServerCustomizer specializeForChannel(Channel channel, ChannelRole role) {
            return this;
        }
    };

    /** One connection's customizer: installs the handlers once its HTTP/1.1 pipeline is built. */
    private final class ConnectionCustomizer implements NettyServerCustomizer {
        private final Channel channel;
        private boolean installed;

        ConnectionCustomizer(Channel channel) {
            this.channel = channel;
        }

        @Override
        public NettyServerCustomizer specializeForChannel(Channel child, ChannelRole role) {
            return NOTHING;
        }

        @Override
        public void onStreamPipelineBuilt() {
            if (!installed
                    && channel.pipeline().get(ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC) instanceof HttpServerCodec) {
                installed = true;
                HeaderDeadlineHandler.install(channel.pipeline(), HeaderDeadline.this);
            }
        }
    }
}
