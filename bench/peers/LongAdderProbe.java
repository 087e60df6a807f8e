// SPDX-License-Identifier: MIT
// LongAdderProbe - Java 17's java.util.concurrent.atomic.LongAdder, measured the
// way ctrbench's update workload measures striped: T threads, each adding +1
// and -1 in turn for a fixed window after a warm-up, the stop flag looked at
// once per block of 1024 adds; prints ns per op per thread (T x window / ops)
// and CPU ns per op (the threads' CPU time / ops, as ctrbench's cpu_ns_per_op:
// other load's preemptions left out).
// A peer for measurement only (bench/peers/README.md): nothing builds or tests
// with it.  Usage: java LongAdderProbe.java THREADS DURATION_MS [WARMUP_MS]
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.LongAdder;

public class LongAdderProbe {
    static volatile int phase; // 0 warm-up, 1 measure, 2 stop

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int durationMs = Integer.parseInt(args[1]);
        int warmupMs = args.length > 2 ? Integer.parseInt(args[2]) : 500;
        LongAdder adder = new LongAdder();
        long[] ops = new long[threads];
        long[] nanos = new long[threads];
        long[] cpu = new long[threads];
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
                }
                ops[me] = measuring ? n : 0;
                nanos[me] = measuring ? System.nanoTime() - start : 0;
                cpu[me] = measuring ? mx.getCurrentThreadCpuTime() - cpu0 : 0;
            });
            ts[i].start();
        }
        Thread.sleep(warmupMs);
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
        System.out.printf("LongAdder threads %d ns/op %.3f cpu_ns/op %.3f%n", threads, threads / rate,
                          (double) allCpu / allOps);
    }
}
