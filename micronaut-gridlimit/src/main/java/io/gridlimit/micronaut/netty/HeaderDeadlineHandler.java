package io.gridlimit.micronaut.netty;

import io.micronaut.http.netty.channel.ChannelPipelineCustomizer;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The per-connection state of {@link HeaderDeadline}: two handlers around Micronaut's {@link HttpServerCodec}, one
 * before it that sees bytes arrive, one after it that sees the decoded request heads and bodies coming in and the
 * responses going out. Every method runs on the connection's event loop, so the state needs no lock.
 *
 * <p>The deadline is armed when the connection is added (its first request) and, once a request was read and its
 * response written, when the next byte arrives; it is disarmed when a request head is decoded. While a request's
 * body is being read, or a response is owed (a slow handler, pipelined requests), nothing is armed: bytes that
 * arrive then arm the deadline when the response is written. When it fires, the connection gets the 408 and is
 * closed (no response is owed then, so the 408 never overtakes another response).
 */
final class HeaderDeadlineHandler extends ChannelDuplexHandler {
    /** Name of the handler before the codec. */
    static final String BYTES_NAME = "gridlimit-header-deadline-bytes";
    /** Name of the handler after the codec. */
    static final String NAME = "gridlimit-header-deadline";

    private final HeaderDeadline deadline;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> timer;
    /** True until the connection's first request head is decoded. */
    private boolean first = true;
    /** True between a request head and the end of its body. */
    private boolean reading;
    /** True when bytes arrived after the last request was read and before the next head. */
    private boolean pending;
    /** True while an informational (1xx) response is being written: its end completes no exchange. */
    private boolean interim;
    /** Responses owed: request heads decoded minus final responses written. */
    private int owed;

    private HeaderDeadlineHandler(HeaderDeadline deadline) {
        this.deadline = deadline;
    }

    /**
     * Adds the handlers around the pipeline's {@value ChannelPipelineCustomizer#HANDLER_HTTP_SERVER_CODEC}.
     *
     * @param pipeline an HTTP/1.1 connection's pipeline, holding Micronaut's server codec
     * @param deadline the settings, the 408 and the counter
     */
    static void install(ChannelPipeline pipeline, HeaderDeadline deadline) {
        HeaderDeadlineHandler handler = new HeaderDeadlineHandler(deadline);
        pipeline.addBefore(ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC, BYTES_NAME, handler.new Bytes());
        pipeline.addAfter(ChannelPipelineCustomizer.HANDLER_HTTP_SERVER_CODEC, NAME, handler);
    }

    /** Sees bytes arrive before the codec decodes them. */
    private final class Bytes extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext bytesCtx, Object msg) {
            if (!reading) {
                pending = true;
                arm();
            }
            bytesCtx.fireChannelRead(msg);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
        arm();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext context) {
        disarm();
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        disarm();
        context.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        if (msg instanceof HttpRequest head) {
            disarm();
            first = false;
            pending = false;
            reading = true;
            owed++;
            if (head.decoderResult().isFailure()) {
                // Netty's stand-in for an undecodable request is HTTP/1.0 (GET /bad-request); answer in HTTP/1.1
                // and close: the decoder discards the rest of the connection anyway.
                head.setProtocolVersion(HttpVersion.HTTP_1_1);
                head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
        }
        if (msg instanceof LastHttpContent) {
            reading = false;
        }
        context.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext context, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof HttpResponse response) {
            interim = response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
        }
        if (msg instanceof LastHttpContent) {
            if (!interim) {
                owed = Math.max(0, owed - 1);
                arm();
            }
            interim = false;
        }
        super.write(context, msg, promise);
    }

    /** Arms the deadline when no request is being read, none is owed a response, and one is due or has begun. */
    private void arm() {
        if (timer == null && ctx != null && !reading && owed == 0 && (first || pending)) {
            timer = ctx.executor().schedule(this::expire, deadline.timeoutNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private void disarm() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** The deadline passed before a request head was decoded: 408, counted, then closed. */
    private void expire() {
        timer = null;
        if (!ctx.channel().isActive() || reading || owed > 0 || ctx.pipeline().get(HttpServerCodec.class) == null) {
            return;
        }
        deadline.countTimeout();
        ctx.writeAndFlush(deadline.timeoutResponse()).addListener(ChannelFutureListener.CLOSE);
    }
}
