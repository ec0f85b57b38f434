# Random gang clusters in kube 1.37's spelling (scheduling.k8s.io/v1beta1):
# competing groups with distinct priorities (their PodGroup's class, or a
# mismatching one), loose pods, and lower-priority running pods.
import random, sys
seed = int(sys.argv[1]); r = random.Random(seed)
out = []
def doc(s): out.append(s.strip('\n'))
doc("# random gang cluster, seed %d (core/gang/testdata/parity/gen.py)" % seed)
classes = [("p%d" % v, v) for v in (100, 200, 300, 400, 500)]
for n, v in classes:
    doc("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: %s}\nvalue: %d" % (n, v))
nodes = r.randint(2, 4); cpu = r.choice([3, 4])
for i in range(1, nodes + 1):
    doc('apiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: {kubernetes.io/hostname: n%d}}\nstatus: {allocatable: {cpu: "%d", memory: 64Gi, pods: "110"}, capacity: {cpu: "%d", memory: 64Gi, pods: "110"}}' % (i, i, cpu, cpu))
# running low pods (priority 0)
for i in range(r.randint(0, nodes)):
    doc('apiVersion: v1\nkind: Pod\nmetadata: {name: run-%d, namespace: default}\nspec: {nodeName: n%d, containers: [{name: c, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]}\nstatus: {phase: Running}' % (i, 1 + i % nodes))
prios = r.sample(classes, r.randint(2, 4))
ts = 0
for gi, (cls, val) in enumerate(prios):
    g = "g%d" % gi
    size = r.randint(2, 5); mn = r.randint(1, size)
    match = r.random() < 0.8
    pg_cls = cls if match else None
    spec = "{schedulingPolicy: {gang: {minCount: %d}}%s}" % (mn, (", priorityClassName: %s" % pg_cls) if pg_cls else "")
    doc("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: %s, namespace: default}\nspec: %s" % (g, spec))
    req = r.choice(["1", "1500m", "2"])
    for i in range(size):
        ts += 1
        doc('apiVersion: v1\nkind: Pod\nmetadata: {name: %s-%d, namespace: default, creationTimestamp: "2025-01-01T00:%02d:%02dZ"}\nspec:\n  priorityClassName: %s\n  schedulingGroup: {podGroupName: %s}\n  containers: [{name: c, image: pause, resources: {requests: {cpu: "%s", memory: 1Gi}}}]' % (g, i, ts // 60, ts % 60, cls, g, req))
for i in range(r.randint(0, 3)):
    ts += 1
    doc('apiVersion: v1\nkind: Pod\nmetadata: {name: loose-%d, namespace: default, creationTimestamp: "2025-01-01T00:%02d:%02dZ"}\nspec:\n  priorityClassName: p%d\n  containers: [{name: c, image: pause, resources: {requests: {cpu: "500m", memory: 1Gi}}}]' % (i, ts // 60, ts % 60, 50 + 100 * i + 50))
print("\n---\n".join(out))
