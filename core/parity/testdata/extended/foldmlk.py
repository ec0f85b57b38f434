#!/usr/bin/env python3
"""foldmlk.py SRC DST: fold pod (anti-)affinity matchLabelKeys and
mismatchLabelKeys into the term's label selector (In / NotIn the pod's own
label value), as kube-apiserver does when it admits a pod, so that a
scheduler that never sees an API server (kubeoracle) gets the same
selectors as one in a real cluster."""
import json,sys
src,dst=sys.argv[1],sys.argv[2]
docs=[d for d in open(src).read().split('---\n') if d.strip()]
out=[]
for d in docs:
    o=json.loads(d)
    if o.get("kind")=="Pod":
        labels=o["metadata"].get("labels",{})
        aff=o["spec"].get("affinity",{})
        for k in ("podAffinity","podAntiAffinity"):
            a=aff.get(k)
            if not a: continue
            terms=list(a.get("requiredDuringSchedulingIgnoredDuringExecution",[]))+[w["podAffinityTerm"] for w in a.get("preferredDuringSchedulingIgnoredDuringExecution",[])]
            for t in terms:
                ls=t.get("labelSelector")
                if ls is None: continue
                for key in t.get("matchLabelKeys",[]):
                    if key in labels: ls.setdefault("matchExpressions",[]).append({"key":key,"operator":"In","values":[labels[key]]})
                for key in t.get("mismatchLabelKeys",[]):
                    if key in labels: ls.setdefault("matchExpressions",[]).append({"key":key,"operator":"NotIn","values":[labels[key]]})
    out.append(o)
open(dst,"w").write("".join("---\n"+json.dumps(o)+"\n" for o in out))
