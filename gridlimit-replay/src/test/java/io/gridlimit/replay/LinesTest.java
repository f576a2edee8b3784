package io.gridlimit.replay;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link LogReader}'s line splitting: ended as {@code BufferedReader#readLine} ends lines, one char per byte. */
class LinesTest {
    private static List<String> lines(byte[] bytes, int chunk) throws IOException {
        InputStream in = new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, chunk)); // short reads split ends across fills
            }
        };
        LogReader.Lines text = new LogReader.Lines(in);
        List<String> out = new ArrayList<>();
        String line;
        while ((line = text.next()) != null) {
            out.add(line);
        }
        return out;
    }

    @Test
    void everyLineEndOfReadLineIsOneEndAndTheLastLineNeedsNone() throws IOException {
        byte[] bytes = "a\r\nb\rc\n\nd\r\r\ne".getBytes(StandardCharsets.ISO_8859_1);
        for (int chunk : new int[] {1, 2, 3, 1 << 16}) {
            assertThat(lines(bytes, chunk)).as("read %d bytes at a time", chunk)
                    .containsExactly("a", "b", "c", "", "d", "", "e");
        }
        assertThat(lines("x\n".getBytes(StandardCharsets.ISO_8859_1), 1)).containsExactly("x");
        assertThat(lines(new byte[0], 1)).isEmpty();
    }

    @Test
    void aLineLongerThanTheBufferAndEveryByteValueArriveWhole() throws IOException {
        String longLine = "x".repeat(200_000);
        byte[] high = {(byte) 0xE9, (byte) 0xFF, (byte) 0x80};
        byte[] bytes = new byte[longLine.length() + 1 + high.length];
        System.arraycopy(longLine.getBytes(StandardCharsets.ISO_8859_1), 0, bytes, 0, longLine.length());
        bytes[longLine.length()] = '\n';
        System.arraycopy(high, 0, bytes, longLine.length() + 1, high.length);
        assertThat(lines(bytes, 1 << 16)).containsExactly(longLine, "\u00e9\u00ff\u0080");
    }
}
