// SPDX-License-Identifier: MIT
// LongAdderProbe - Java 17's java.util.concurrent.atomic.LongAdder, measured the
// way ctrbench's update workload measures striped: T threads, each adding +1
// and -1 in turn for a fixed window after a warm-up, the stop flag looked at
// once per block of 1024 adds; prints ns per op per thread (T x window / ops)
// and CPU ns per op (the threads' CPU time / ops, as ctrbench's cpu_ns_per_op:
// other load's preemptions left out), then how long the warm-up ran.
//
// The warm-up runs WARMUP_MS at least (default 1000), and then on until two
// consecutive windows of WINDOW_MS (100) agree within 5% on CPU ns per op (at
// most 10 s more; a warm-up that never settled is said on stderr): on a loaded
// 2-vCPU guest 3 of 6 figures after a 300 ms warm-up were 21-41 ns, the JIT not
// done, where after 1 s all six were 3.7-4.5 (issue 28).
// A peer for measurement only (bench/peers/README.md): nothing builds or tests
// with it.  Usage: java LongAdderProbe.java THREADS DURATION_MS [WARMUP_MS]
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

public class LongAdderProbe {
    static volatile int phase; // 0 warm-up, 1 measure, 2 stop
    static final int PAD = 16; // longs a thread's published count is apart: two 64-byte lines
    static final int WINDOW_MS = 100;
    static final int SETTLE_MAX_MS = 10000;

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int durationMs = Integer.parseInt(args[1]);
        int warmupMs = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        LongAdder adder = new LongAdder();
        long[] ops = new long[threads];
        long[] nanos = new long[threads];
        long[] cpu = new long[threads];
        // each thread's adds so far during the warm-up, published once per block, a line apart
        AtomicLongArray done = new AtomicLongArray(threads * PAD);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Thread[] ts = new Thread[threads];

        for (int i = 0; i < threads; i++) {
            final int me = i;
            ts[i] = new Thread(() -> {
                long n = 0, start = 0, cpu0 = 0;
                boolean measuring = false;
                for (;;) {
                    int p = phase;
                    if (p == 1 && !measuring) {
                        measuring = true;
                        n = 0;
                        start = System.nanoTime();
                        cpu0 = mx.getCurrentThreadCpuTime();
                    } else if (p == 2) {
                        break;
                    }
                    for (int k = 0; k < 512; k++) {
                        adder.add(1);
                        adder.add(-1);
                    }
                    n += 1024;
                    if (!measuring)
                        done.lazySet(me * PAD, n);
                }
                ops[me] = measuring ? n : 0;
                nanos[me] = measuring ? System.nanoTime() - start : 0;
                cpu[me] = measuring ? mx.getCurrentThreadCpuTime() - cpu0 : 0;
            });
            ts[i].start();
        }
        long t0 = System.nanoTime();
        Thread.sleep(warmupMs);
        // then windows until two in a row agree within 5%: CPU ns per op of all the threads
        double last = -1, now;
        boolean settled = false;
        long[] c0 = new long[threads], n0 = new long[threads];
        sample(mx, ts, done, c0, n0);
        for (int waited = 0; waited < SETTLE_MAX_MS; waited += WINDOW_MS) {
            Thread.sleep(WINDOW_MS);
            long[] c1 = new long[threads], n1 = new long[threads];
            sample(mx, ts, done, c1, n1);
            long dc = 0, dn = 0;
            for (int i = 0; i < threads; i++) {
                dc += c1[i] - c0[i];
                dn += n1[i] - n0[i];
            }
            now = dn > 0 ? (double) dc / dn : -1;
            c0 = c1;
            n0 = n1;
            if (last > 0 && now > 0 && Math.abs(now - last) <= 0.05 * Math.min(now, last)) {
                settled = true;
                break;
            }
            last = now;
        }
        long warmedMs = (System.nanoTime() - t0) / 1000000;
        if (!settled)
            System.err.printf("LongAdderProbe: warm-up did not settle in %d ms (windows %d ms apart differ by more than 5%%)%n",
                              warmedMs, WINDOW_MS);
        phase = 1;
        Thread.sleep(durationMs);
        phase = 2;
        for (Thread t : ts)
            t.join();
        double rate = 0; // ops per ns, summed over threads, each over its own window
        long allOps = 0, allCpu = 0;
        for (int i = 0; i < threads; i++) {
            if (nanos[i] > 0)
                rate += (double) ops[i] / nanos[i];
            allOps += ops[i];
            allCpu += cpu[i];
        }
        if (adder.sum() != 0)
            throw new IllegalStateException("LongAdder lost an update: sum " + adder.sum());
        System.out.printf("LongAdder threads %d ns/op %.3f cpu_ns/op %.3f warmup_ms %d settled %b%n", threads,
                          threads / rate, (double) allCpu / allOps, warmedMs, settled);
    }

    // each thread's CPU time (ns) and published adds
    static void sample(ThreadMXBean mx, Thread[] ts, AtomicLongArray done, long[] c, long[] n) {
        for (int i = 0; i < ts.length; i++) {
            n[i] = done.get(i * PAD);
            c[i] = mx.getThreadCpuTime(ts[i].getId());
        }
    }
}
