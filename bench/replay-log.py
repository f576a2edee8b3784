#!/usr/bin/env python3
"""Writes a synthetic Apache combined access log for bench/replay.sh (deterministic: the same arguments give the same
bytes). Client addresses are Zipf-like over ADDRESSES; lines are written in completion order, so up to 20 s earlier
than the line before; paths mix /api/** (limited by bench/replay-one.yml) with static files.
   bench/replay-log.py LINES ADDRESSES HOURS SEED > big.log"""
import random
import sys
import time

lines, addresses, hours, seed = (int(a) for a in sys.argv[1:5])
rnd = random.Random(seed)
ips = ['%d.%d.%d.%d' % (rnd.randrange(1, 224), rnd.randrange(256), rnd.randrange(256), rnd.randrange(1, 255))
       for _ in range(addresses)]
weights = [1.0 / (i + 1) for i in range(addresses)]
cum = []
t = 0.0
for w in weights:
    t += w
    cum.append(t)
paths = ['/api/orders', '/api/orders/%d', '/api/users/%d', '/api/search?q=%d', '/static/app.js', '/index.html',
         '/images/logo%d.png', '/api/items/%d/reviews']
agents = ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
          'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
          'curl/8.5.0', 'Googlebot/2.1 (+http://www.google.com/bot.html)']
start = 1_700_000_000
span = hours * 3600
months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
out = sys.stdout
import bisect
buf = []
for i in range(lines):
    done = start + span * i // lines
    began = done - rnd.randrange(0, 21) if rnd.random() < 0.5 else done
    ip = ips[bisect.bisect_left(cum, rnd.random() * t)]
    p = rnd.choice(paths)
    if '%d' in p:
        p = p % rnd.randrange(1000)
    g = time.gmtime(began)
    stamp = '%02d/%s/%04d:%02d:%02d:%02d +0000' % (g.tm_mday, months[g.tm_mon - 1], g.tm_year, g.tm_hour, g.tm_min,
                                                    g.tm_sec)
    method = 'POST' if rnd.random() < 0.1 else 'GET'
    buf.append('%s - - [%s] "%s %s HTTP/1.1" 200 %d "https://example.com/" "%s"\n'
               % (ip, stamp, method, p, rnd.randrange(200, 20000), rnd.choice(agents)))
    if len(buf) >= 10000:
        out.write(''.join(buf))
        buf.clear()
out.write(''.join(buf))
