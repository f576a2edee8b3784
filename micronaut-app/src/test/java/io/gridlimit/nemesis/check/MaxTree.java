package io.gridlimit.nemesis.check;

/**
 * A segment tree over {@code n} values: add a constant to a prefix, and find the largest value of a prefix with its
 * index, each in O(log n). Exact {@code long} arithmetic: an overflow throws {@link ArithmeticException}. Not
 * thread-safe.
 */
final class MaxTree {
    private final int n;
    private final long[] max;
    private final int[] arg;
    private final long[] lazy;

    /**
     * @param initial the starting values, at least one
     */
    MaxTree(long[] initial) {
        this.n = initial.length;
        int size = 1;
        while (size < n) {
            size <<= 1;
        }
        max = new long[2 * size];
        arg = new int[2 * size];
        lazy = new long[2 * size];
        build(1, 0, n - 1, initial);
    }

    private void build(int node, int lo, int hi, long[] v) {
        if (lo == hi) {
            max[node] = v[lo];
            arg[node] = lo;
            return;
        }
        int mid = (lo + hi) >>> 1;
        build(2 * node, lo, mid, v);
        build(2 * node + 1, mid + 1, hi, v);
        pull(node);
    }

    /**
     * Adds {@code delta} to the values at indexes {@code [0, last]}.
     *
     * @param last the last index, inclusive; nothing when negative
     * @param delta the amount
     */
    void addPrefix(int last, long delta) {
        if (last < 0 || delta == 0) {
            return;
        }
        add(1, 0, n - 1, Math.min(last, n - 1), delta);
    }

    private void add(int node, int lo, int hi, int last, long delta) {
        if (lo > last) {
            return;
        }
        if (hi <= last) {
            max[node] = Math.addExact(max[node], delta);
            lazy[node] = Math.addExact(lazy[node], delta);
            return;
        }
        push(node);
        int mid = (lo + hi) >>> 1;
        add(2 * node, lo, mid, last, delta);
        add(2 * node + 1, mid + 1, hi, last, delta);
        pull(node);
    }

    /**
     * @param last the last index, inclusive, >= 0
     * @return the index of the largest value in {@code [0, last]} (the first among equals)
     */
    int argMaxPrefix(int last) {
        return query(1, 0, n - 1, Math.min(last, n - 1));
    }

    /**
     * @param i an index
     * @return the value at {@code i}
     */
    long get(int i) {
        int node = 1;
        int lo = 0;
        int hi = n - 1;
        while (lo != hi) {
            push(node);
            int mid = (lo + hi) >>> 1;
            if (i <= mid) {
                node = 2 * node;
                hi = mid;
            } else {
                node = 2 * node + 1;
                lo = mid + 1;
            }
        }
        return max[node];
    }

    private int query(int node, int lo, int hi, int last) {
        if (hi <= last) {
            return arg[node];
        }
        push(node);
        int mid = (lo + hi) >>> 1;
        if (last <= mid) {
            return query(2 * node, lo, mid, last);
        }
        int left = arg[2 * node];
        int right = query(2 * node + 1, mid + 1, hi, last);
        return get(right) > max[2 * node] ? right : left;
    }

    private void push(int node) {
        long d = lazy[node];
        if (d != 0) {
            for (int c = 2 * node; c <= 2 * node + 1; c++) {
                max[c] = Math.addExact(max[c], d);
                lazy[c] = Math.addExact(lazy[c], d);
            }
            lazy[node] = 0;
        }
    }

    private void pull(int node) {
        int l = 2 * node;
        int r = l + 1;
        if (max[r] > max[l]) {
            max[node] = max[r];
            arg[node] = arg[r];
        } else {
            max[node] = max[l];
            arg[node] = arg[l];
        }
    }
}
