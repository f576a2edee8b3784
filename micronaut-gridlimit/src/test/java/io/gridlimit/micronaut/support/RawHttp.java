package io.gridlimit.micronaut.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
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
     */
    public record Response(int status, Map<String, String> headers, String body) {
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
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(10_000);
            StringBuilder req = new StringBuilder();
            req.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
            req.append("Host: 127.0.0.1:").append(port).append("\r\n");
            for (String h : extraHeaders) {
                req.append(h).append("\r\n");
            }
            req.append("Connection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.US_ASCII));
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
            return new Response(status, headers, body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
