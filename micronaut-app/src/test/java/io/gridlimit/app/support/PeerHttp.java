package io.gridlimit.app.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 exchange over a plain socket bound to a chosen loopback address (127.0.0.0/8 on Linux), so a test can
 * act as different peers: the request is sent byte for byte as written (any Host or Authorization header), with
 * {@code Connection: close}. Test support only.
 */
public final class PeerHttp {
    private PeerHttp() {
    }

    /**
     * An answer: status, headers (names lower-cased; repeated headers joined with {@code ", "}), body as text.
     *
     * @param status the status code
     * @param headers the headers
     * @param body the body (de-chunked), empty when none
     * @param statusLine the status line as sent, e.g. {@code HTTP/1.1 404 Not Found}
     */
    public record Response(int status, Map<String, String> headers, String body, String statusLine) {
        /** @param name a header name, any case @return its value, or null */
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /**
     * Sends one request from a peer address.
     *
     * @param peer the local address to bind, e.g. {@code 127.0.0.9}
     * @param port the server's port on 127.0.0.1
     * @param method e.g. {@code POST}
     * @param target e.g. {@code /v1/ratelimit/check}
     * @param body a JSON body, or null for none
     * @param headers extra header lines, e.g. {@code Authorization: Bearer x}; a {@code Content-Type} line replaces
     *     the default {@code application/json}, and a bare {@code Content-Type:} sends none
     * @return the response
     */
    public static Response send(String peer, int port, String method, String target, String body, String... headers) {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(peer), 0));
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
            socket.setSoTimeout(30_000);
            StringBuilder request = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n");
            boolean hostGiven = false;
            boolean typeGiven = false;
            for (String h : headers) {
                hostGiven |= h.regionMatches(true, 0, "Host:", 0, 5);
                boolean type = h.regionMatches(true, 0, "Content-Type:", 0, 13);
                typeGiven |= type;
                if (!(type && h.length() == 13)) { // a bare "Content-Type:" means: send none
                    request.append(h).append("\r\n");
                }
            }
            if (!hostGiven) {
                request.append("Host: 127.0.0.1:").append(port).append("\r\n");
            }
            byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            if (body != null) {
                if (!typeGiven) {
                    request.append("Content-Type: application/json\r\n");
                }
                request.append("Content-Length: ").append(content.length).append("\r\n");
            }
            request.append("Connection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
            out.write(content);
            out.flush();
            return parse(socket.getInputStream().readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Response parse(byte[] raw) throws IOException {
        String all = new String(raw, StandardCharsets.ISO_8859_1);
        int end = all.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IOException("no complete response head: " + all);
        }
        String[] lines = all.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            headers.merge(name, lines[i].substring(colon + 1).trim(), (a, b) -> a + ", " + b);
        }
        byte[] body = java.util.Arrays.copyOfRange(raw, end + 4, raw.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Response(status, headers, new String(body, StandardCharsets.UTF_8), lines[0]);
    }

    private static byte[] dechunk(byte[] chunked) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InputStream in = new java.io.ByteArrayInputStream(chunked);
        while (true) {
            List<Byte> sizeLine = new ArrayList<>();
            int b;
            while ((b = in.read()) != '\n') {
                if (b < 0) {
                    return out.toByteArray();
                }
                if (b != '\r') {
                    sizeLine.add((byte) b);
                }
            }
            StringBuilder hex = new StringBuilder();
            sizeLine.forEach(x -> hex.append((char) (x & 0xff)));
            int size = Integer.parseInt(hex.toString().split(";")[0].trim(), 16);
            if (size == 0) {
                return out.toByteArray();
            }
            out.write(in.readNBytes(size));
            in.skip(2);
        }
    }
}
