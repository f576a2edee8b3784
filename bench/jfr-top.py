#!/usr/bin/env python3
"""Summarises a JFR recording's execution samples (JDK 17 has no `jfr view`): share of samples per thread
(digits folded), top self frames, and inclusive shares of the frames whose name matches a pattern.

    jfr print --events jdk.ExecutionSample rec.jfr > rec.txt
    bench/jfr-top.py rec.txt 'gridlimit|Expiry|LockStore'      # the pattern is a Python regex

Used for the profiles quoted in bench/README.md (bench/results/profiles/)."""
import collections
import re
import sys


def main(path, pattern):
    samples = open(path).read().split('jdk.ExecutionSample')[1:]
    threads, self_frames, inclusive = collections.Counter(), collections.Counter(), collections.Counter()
    for sample in samples:
        frames = re.findall(r'^\s+([\w.$<>]+)\(.*?line:', sample, re.M)
        thread = re.search(r'sampledThread = "([^"]*)"', sample)
        if thread:
            threads[re.sub(r'\d+', 'N', thread.group(1))] += 1
        if frames:
            self_frames[frames[0]] += 1
            for frame in set(frames):
                inclusive[frame] += 1
    n = max(1, len(samples))
    print(f"samples {len(samples)}")
    for name, count in threads.most_common(8):
        print(f"{count * 100 / n:5.1f}% thread {name}")
    print("self:")
    for name, count in self_frames.most_common(20):
        print(f"{count * 100 / n:5.1f}% {name}")
    print(f"inclusive, frames matching {pattern!r}:")
    for name, count in inclusive.most_common():
        if re.search(pattern, name):
            print(f"{count * 100 / n:5.1f}% {name}")


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else 'gridlimit')
