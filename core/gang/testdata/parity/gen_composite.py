# Random composite gang clusters in kube 1.37's spelling: trees of pod groups
# (scheduling.k8s.io/v1alpha3 CompositePodGroup, gang minGroupCount or basic,
# sometimes nested one level) of distinct priorities competing for the nodes,
# and loose pods of a higher priority. No running pods: Berth does not model
# a composite tree's preemption (docs/gang-scheduling.md), so nothing here
# gives a tree pods of a lower priority to preempt.
import random, sys
seed = int(sys.argv[1]); r = random.Random(seed)
out = []
def doc(s): out.append(s.strip('\n'))
doc("# random composite gang cluster, seed %d (core/gang/testdata/parity/gen_composite.py)" % seed)
classes = [("p%d" % v, v) for v in (100, 200, 300, 400, 500, 900)]
for n, v in classes:
    doc("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: %s}\nvalue: %d" % (n, v))
nodes = r.randint(2, 4); cpu = r.choice([3, 4])
for i in range(1, nodes + 1):
    doc('apiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: {kubernetes.io/hostname: n%d}}\nstatus: {allocatable: {cpu: "%d", memory: 64Gi, pods: "110"}, capacity: {cpu: "%d", memory: 64Gi, pods: "110"}}' % (i, i, cpu, cpu))
ts = 0
def pods(g, size, cls, req):
    global ts
    for i in range(size):
        ts += 1
        doc('apiVersion: v1\nkind: Pod\nmetadata: {name: %s-%d, namespace: default, creationTimestamp: "2025-01-01T00:%02d:%02dZ"}\nspec:\n  priorityClassName: %s\n  schedulingGroup: {podGroupName: %s}\n  containers: [{name: c, image: pause, resources: {requests: {cpu: "%s", memory: 1Gi}}}]' % (g, i, ts // 60, ts % 60, cls, g, req))
def policy(children):
    if r.random() < 0.25:
        return "{basic: {}}"
    return "{gang: {minGroupCount: %d}}" % r.randint(1, children)
def podgroup(name, parent, cls):
    size = r.randint(1, 3); mn = r.randint(1, size)
    doc("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: %s, namespace: default}\nspec: {parentCompositePodGroupName: %s, workloadRef: {workloadName: %s, templateName: %s}, schedulingPolicy: {gang: {minCount: %d}}}" % (name, parent, parent, name, mn))
    pods(name, size, cls, r.choice(["500m", "1", "1500m"]))
trees = r.sample(classes[:5], r.randint(1, 3))
for ti, (cls, val) in enumerate(trees):
    root = "t%d" % ti
    children = r.randint(2, 3)
    doc("apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: %s, namespace: default}\nspec: {workloadRef: {workloadName: %s, templateName: root}, schedulingPolicy: %s, priorityClassName: %s}" % (root, root, policy(children), cls))
    for ci in range(children):
        child = "%s-c%d" % (root, ci)
        if ci == children - 1 and r.random() < 0.4:
            doc("apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: %s, namespace: default}\nspec: {parentCompositePodGroupName: %s, workloadRef: {workloadName: %s, templateName: mid}, schedulingPolicy: %s}" % (child, root, root, policy(2)))
            for gi in range(2):
                podgroup("%s-g%d" % (child, gi), child, cls)
        else:
            podgroup(child, root, cls)
for i in range(r.randint(0, 2)):
    ts += 1
    doc('apiVersion: v1\nkind: Pod\nmetadata: {name: loose-%d, namespace: default, creationTimestamp: "2025-01-01T00:%02d:%02dZ"}\nspec:\n  priorityClassName: p900\n  containers: [{name: c, image: pause, resources: {requests: {cpu: "500m", memory: 1Gi}}}]' % (i, ts // 60, ts % 60))
print("\n---\n".join(out))
