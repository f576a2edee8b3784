package io.gridlimit.replay;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The hand-over between a producer thread and a consumer thread, on small batches (8 items, 2 queued) so that the
 * producer waits for room: items in order across several batches and a partial one, the producer's error after its
 * items, the consumer's error thrown to the producer's next add and end, and a close before the end. Each test is
 * bounded by {@link #LIMIT}: a hand-over that fails to let a side go hangs instead of failing.
 */
class HandOverTest {
    private static final int BATCH = 8;
    private static final int QUEUED = 2;
    private static final Duration LIMIT = Duration.ofSeconds(20);

    @Test
    void itemsArriveInOrderAcrossSeveralBatchesAndAPartialOne() {
        assertTimeoutPreemptively(LIMIT, () -> {
            HandOver<Integer> handOver = new HandOver<>(BATCH, QUEUED, "consuming failed");
            int n = 5 * BATCH + 3; // 5 full batches, more than the queue holds, and a partial one of 3
            List<Boolean> handedOver = new ArrayList<>();
            Thread producer = new Thread(() -> {
                for (int i = 0; i < n; i++) {
                    handedOver.add(handOver.add(i));
                }
                handOver.end();
            });
            producer.start();
            List<Integer> consumed = new ArrayList<>();
            assertThat(handOver.drain(consumed::add)).isNull();
            producer.join();
            assertThat(consumed).containsExactlyElementsOf(IntStream.range(0, n).boxed().toList());
            // add tells when its item filled a batch: the 8th, 16th, ... 40th
            assertThat(IntStream.range(0, n).filter(handedOver::get).boxed().toList())
                    .containsExactly(7, 15, 23, 31, 39);
            assertThat(handOver.ended()).isTrue();
            assertThatThrownBy(() -> handOver.add(n)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("the hand-over has ended or is closed: nothing can be added");
        });
    }

    @Test
    void theProducersErrorComesAfterItsItems() {
        assertTimeoutPreemptively(LIMIT, () -> {
            HandOver<Integer> handOver = new HandOver<>(BATCH, QUEUED, "consuming failed");
            IOException error = new IOException("unreadable");
            Thread producer = new Thread(() -> {
                for (int i = 0; i < BATCH + 2; i++) {
                    handOver.add(i);
                }
                handOver.fail(error);
            });
            producer.start();
            List<Integer> consumed = new ArrayList<>();
            assertThat(handOver.drain(consumed::add)).isSameAs(error);
            producer.join();
            assertThat(consumed).containsExactlyElementsOf(IntStream.range(0, BATCH + 2).boxed().toList());
        });
    }

    @Test
    void anErrorOfTheConsumerIsThrownByTheProducersNextAddAndEnd() {
        assertTimeoutPreemptively(LIMIT, () -> {
            HandOver<Integer> handOver = new HandOver<>(BATCH, QUEUED, "consuming failed");
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread consumer = new Thread(() -> {
                try {
                    handOver.drain(i -> {
                        if (i == 3) {
                            throw new IllegalArgumentException("item 3");
                        }
                    });
                } catch (RuntimeException e) {
                    thrown.set(e);
                }
            });
            consumer.start();
            for (int i = 0; i < BATCH; i++) {
                handOver.add(i);
            }
            consumer.join();
            assertThat(thrown.get()).isInstanceOf(IllegalArgumentException.class).hasMessage("item 3");
            // the next add, not the next full batch, throws it
            assertThatThrownBy(() -> handOver.add(BATCH)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("consuming failed: java.lang.IllegalArgumentException: item 3")
                    .cause().isSameAs(thrown.get());
            assertThatThrownBy(handOver::end).isInstanceOf(IllegalStateException.class)
                    .cause().isSameAs(thrown.get());
            assertThatThrownBy(handOver::check).isInstanceOf(IllegalStateException.class)
                    .cause().isSameAs(thrown.get());
        });
    }

    @Test
    void aProducerWaitingForRoomIsLetGoWhenTheConsumerFails() {
        assertTimeoutPreemptively(LIMIT, () -> {
            HandOver<Integer> handOver = new HandOver<>(BATCH, 1, "consuming failed");
            CountDownLatch failNow = new CountDownLatch(1);
            Thread consumer = new Thread(() -> {
                try {
                    handOver.drain(i -> {
                        try {
                            failNow.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        throw new IllegalArgumentException("item " + i);
                    });
                } catch (RuntimeException e) {
                    // kept by the hand-over
                }
            });
            consumer.start();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread producer = new Thread(() -> {
                try {
                    for (int i = 0; ; i++) {
                        handOver.add(i); // the third batch waits: one consumed, one queued
                    }
                } catch (IllegalStateException e) {
                    thrown.set(e);
                }
            });
            producer.start();
            while (producer.getState() != Thread.State.TIMED_WAITING) {
                Thread.sleep(1);
            }
            failNow.countDown();
            producer.join();
            consumer.join();
            assertThat(thrown.get()).hasMessage("consuming failed: java.lang.IllegalArgumentException: item 0");
        });
    }

    @Test
    void closedBeforeTheEndTheConsumerStopsAtItsNextBatch() {
        assertTimeoutPreemptively(LIMIT, () -> {
            HandOver<Integer> handOver = new HandOver<>(BATCH, QUEUED, "consuming failed");
            CountDownLatch consuming = new CountDownLatch(1);
            CountDownLatch closed = new CountDownLatch(1);
            List<Integer> consumed = new ArrayList<>();
            AtomicReference<Throwable> returned = new AtomicReference<>(new AssertionError("drain did not return"));
            Thread consumer = new Thread(() -> {
                returned.set(handOver.drain(i -> {
                    consumed.add(i);
                    consuming.countDown();
                    try {
                        closed.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
            });
            consumer.start();
            for (int i = 0; i < (1 + QUEUED) * BATCH; i++) {
                handOver.add(i); // one batch being consumed, QUEUED waiting
            }
            assertThat(consuming.await(10, TimeUnit.SECONDS)).isTrue();
            handOver.close();
            closed.countDown();
            consumer.join();
            // the batch under way is consumed to its end; the queued ones are not
            assertThat(consumed).containsExactlyElementsOf(IntStream.range(0, BATCH).boxed().toList());
            assertThat(returned.get()).isNull();
            assertThat(handOver.closed()).isTrue();
            assertThatThrownBy(() -> handOver.add(0)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("the hand-over has ended or is closed: nothing can be added");
        });
    }

    @Test
    void sizesBelowOneAreRefused() {
        assertThatThrownBy(() -> new HandOver<Integer>(0, 1, "x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("batchSize and queued must be at least 1, not 0 and 1");
    }
}
