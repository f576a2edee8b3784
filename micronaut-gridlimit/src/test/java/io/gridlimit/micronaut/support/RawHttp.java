package io.gridlimit.micronaut.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A minimal HTTP/1.1 client that sends the request target exactly as given ({@code //demo/hello},
 * {@code /demo/%68ello}, {@code /demo/./hello}), which URI-normalising clients would rewrite.
 */
public final class RawHttp {
    private RawHttp() {
    }

    /**
     * A response: status and headers (names lower-cased), body as text.
     *
     * @param status the status code
     * @param headers header names in lower case to their (last) value
     * @param body the body
     * @param statusLine the status line as sent, e.g. {@code HTTP/1.1 414 Request-URI Too Long}
     */
    public record Response(int status, Map<String, String> headers, String body, String statusLine) {
        /** @param name a header name, any case @return its value or null */
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /**
     * Sends one request on a new connection to 127.0.0.1.
     *
     * @param port the server port
     * @param method the method, e.g. GET
     * @param target the request target, sent verbatim
     * @param extraHeaders more header lines, e.g. {@code X-Forwarded-For: 203.0.113.7}
     * @return the response
     */
    public static Response send(int port, String method, String target, String... extraHeaders) {
        StringBuilder req = new StringBuilder();
        req.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
        req.append("Host: 127.0.0.1:").append(port).append("\r\n");
        for (String h : extraHeaders) {
            req.append(h).append("\r\n");
        }
        req.append("Connection: close\r\n\r\n");
        return exchange(null, port, req.toString().getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Sends one request with a body on a new connection to 127.0.0.1.
     *
     * @param port the server port
     * @param method the method, e.g. POST
     * @param target the request target, sent verbatim
     * @param contentType the {@code Content-Type} header's value
     * @param body the body, sent as UTF-8 with its {@code Content-Length}
     * @return the response
     */
    public static Response sendBody(int port, String method, String target, String contentType, String body) {
        byte[] content = body.getBytes(StandardCharsets.UTF_8);
        String head = method + ' ' + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: "
                + contentType + "\r\nContent-Length: " + content.length + "\r\nConnection: close\r\n\r\n";
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        req.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
        req.writeBytes(content);
        return exchange(null, port, req.toByteArray());
    }

    /**
     * Sends one GET request on a new connection to 127.0.0.1 from a chosen local address, so the server sees
     * that address as the socket peer (any 127.0.0.0/8 address works on Linux: a trusted proxy or a client).
     *
     * @param from the local address to bind, e.g. {@code 127.0.0.2}
     * @param port the server port
     * @param target the request target, sent verbatim
     * @param headerLines more header lines as raw bytes (no CR LF), sent as they are: any byte, any encoding
     * @return the response
     */
    public static Response sendBytesFrom(String from, int port, String target, byte[]... headerLines) {
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        req.writeBytes(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        for (byte[] line : headerLines) {
            req.writeBytes(line);
            req.writeBytes(new byte[] {'\r', '\n'});
        }
        req.writeBytes("Connection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        try {
            return exchange(InetAddress.getByName(from), port, req.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Sends one GET request from a chosen local address, header lines given as text (ISO-8859-1).
     *
     * @param from the local address to bind
     * @param port the server port
     * @param target the request target
     * @param headerLines header lines, e.g. {@code Forwarded: for=203.0.113.78}
     * @return the response
     */
    public static Response sendFrom(String from, int port, String target, String... headerLines) {
        byte[][] lines = new byte[headerLines.length][];
        for (int i = 0; i < lines.length; i++) {
            lines[i] = headerLines[i].getBytes(StandardCharsets.ISO_8859_1);
        }
        return sendBytesFrom(from, port, target, lines);
    }

    private static Response exchange(InetAddress from, int port, byte[] request) {
        try (Socket socket = new Socket()) {
            if (from != null) {
                socket.bind(new InetSocketAddress(from, 0));
            }
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            String text = all.toString(StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            String head = end < 0 ? text : text.substring(0, end);
            String body = end < 0 ? "" : text.substring(end + 4);
            String[] lines = head.split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                            lines[i].substring(colon + 1).trim());
                }
            }
            return new Response(status, headers, body, lines[0]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
