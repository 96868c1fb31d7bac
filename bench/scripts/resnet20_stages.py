#!/usr/bin/python3
"""Where a ResNet-20 training step goes, by phase and stage, from `ablate run --profile T`.

Usage: resnet20_stages.py TRACE.json

Like step_spans.py, over the steps after the first 2; each op's position in the step is the same
in every step, so its median time per position is taken, then summed per op type and per
(forward/backward, stage). Stages are told apart by the convolutions' FLOPs at batch 128 (every
3x3 convolution 604 MFLOP, the stride-2 ones 302, the stem 113): the stride-2 convolution opens
stages 2 and 3 in the forward and closes them in the backward. Standard library only.
"""
import json, sys, statistics, collections
trace = json.load(open(sys.argv[1]))
ev = [e for e in (trace['traceEvents'] if isinstance(trace, dict) else trace) if e.get('ph') == 'X']
steps = [e for e in ev if e['name'].startswith('step ') and int(e['name'].split()[1]) > 2]
ops = sorted([e for e in ev if e.get('cat') == 'op'], key=lambda e: e['ts'])
per = []
for s in steps:
    b, en = s['ts'], s['ts'] + s['dur']
    per.append([o for o in ops if b <= o['ts'] and o['ts'] + o['dur'] <= en and o.get('tid') == s.get('tid')])
n = min(len(p) for p in per)
step = statistics.median(s['dur'] for s in steps) / 1e3
phase, stage, leaving = 'fwd', 'stem', False
agg = collections.Counter(); bytype = collections.Counter()
for i in range(n):
    name = per[0][i]['name']; fl = per[0][i].get('args', {}).get('flops', 0)
    ms = statistics.median(p[i]['dur'] for p in per) / 1e3
    if name == 'softmax_xent_backward': phase, stage = 'bwd', 's3'
    if phase == 'fwd' and name.startswith('conv2d'):
        if fl == 603979776 and stage == 'stem': stage = 's1'
        elif fl == 301989888: stage = {'s1': 's2', 's2': 's3'}.get(stage, stage)
    if phase == 'bwd' and name.startswith('conv2d'):
        if fl == 301989888: leaving = True
        elif fl == 603979776 and leaving: stage, leaving = {'s3': 's2', 's2': 's1'}[stage], False
        elif fl == 113246208: stage = 'stem'
    kind = 'conv' if name.startswith('conv2d') else name
    agg[(phase, stage, kind)] += ms; bytype[name] += ms
print(f'median step {step:.1f} ms over {len(per)} steps')
for k, ms in sorted(bytype.items(), key=lambda kv: -kv[1]): print(f'  {k:28s} {ms:8.2f} ms {100*ms/step:5.1f}%')
print('per phase and stage:')
for ph in ('fwd', 'bwd'):
    for st in ('stem', 's1', 's2', 's3'):
        row = {k[2]: v for k, v in agg.items() if k[0] == ph and k[1] == st}
        tot = sum(row.values())
        if tot: print(f'  {ph} {st:4s} {tot:8.1f} ms {100*tot/step:5.1f}% : ' + ', '.join(f'{k} {100*v/step:.1f}%' for k, v in sorted(row.items(), key=lambda kv: -kv[1]) if v/step > 0.002))
