#!/usr/bin/env python3
"""Write synthetic sacct records of ckpt reservation chains for a job of a
known walltime law (examples/censored-sacct.txt: python3 censored_sacct.py 1 300).
Standard library only; deterministic for a given seed. The true walltimes'
summary goes to stderr."""
import random, math, sys
seed=int(sys.argv[1]); n=int(sys.argv[2])
r=random.Random(seed)
mu=math.log(420)-0.18; sigma=0.6
C=R=20; L1=300; L2=300; lag=25
out=[]
out.append("# Synthetic sacct records (deterministic: Python random.Random(%d)) of %d chains of"%(seed,n))
out.append("# ckpt reservations for a job of known walltime law lognormal:mu=%.12g,sigma=0.6"%mu)
out.append("# (mean 420 s). Each chain: r1 of 300 s ending with a checkpoint (C = 20 s: 280 s of")
out.append("# work saved), then r2 of 300 s restarting from it (R = 20 s); a job needing more than")
out.append("# 585 s runs out: Slurm ends r2 (TIMEOUT, 25 s after its limit) before the runner")
out.append("# records it, so the run is censored at 280 + 325 - 20 = 585 s of work.")
out.append("# Made by examples/censored_sacct.py %d %d, in the layout of:"%(seed,n))
out.append("#   sacct -X --parsable2 --format JobID,JobName,State,ElapsedRaw,ExitCode,Comment")
out.append("JobID|JobName|State|ElapsedRaw|ExitCode|Comment")
jid=5000
truth=[]
for i in range(1,n+1):
    w=round(r.lognormvariate(mu,sigma))
    w=max(w,1)
    truth.append(w)
    cid="sim-%03d"%i
    j1=jid; j2=jid+1; jid+=2
    if w<=L1-C:
        out.append("%d|sim.r1|COMPLETED|%d|0:0|ckpt:chain=%s;r=1;outcome=done;progress=%d;work=%d"%(j1,w,cid,w,w))
        out.append("%d|sim.r2|CANCELLED by 0|0|0:0|ckpt:chain=%s"%(j2,cid))
        continue
    out.append("%d|sim.r1|FAILED|%d|1:0|ckpt:chain=%s;r=1;outcome=checkpointed;progress=%d;work=%d"%(j1,L1,cid,L1-C,L1-C))
    rest=w-(L1-C)
    if rest<=L2+lag-R:
        out.append("%d|sim.r2|COMPLETED|%d|0:0|ckpt:chain=%s;r=2;outcome=done;progress=%d;work=%d"%(j2,R+rest,cid,w,w))
    else:
        out.append("%d|sim.r2|TIMEOUT|%d|0:15|ckpt:chain=%s;r=2;outcome=running;progress=%d;work=%d;restart=%d"%(j2,L2+lag,cid,L1-C,L1-C,R))
    if i%60==0:
        out.append("%d|sim|CANCELLED by 1000|12|0:15|"%jid); jid+=1
print("\n".join(out))
cens=[t for t in truth if t>585]
import statistics
print("truth sample mean",statistics.mean(truth),"censored",len(cens),"complete mean",statistics.mean([t for t in truth if t<=585]),file=sys.stderr)
