"""berth_client.session.identity: how a session matches the refusals of a
re-list to the calls the re-list superseded. Two objects share an identity
only when berthd takes them for one object."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from berth_client.session import identity  # noqa: E402
from berth_client.v1 import object_pb2  # noqa: E402


def obj(kind, **fields):
    o = object_pb2.Object()
    for k, v in fields.items():
        setattr(getattr(o, kind), k, v)
    return o


class IdentityTest(unittest.TestCase):
    def test_every_kind(self):
        cases = [
            ("node", obj("node", name="n1"), (object_pb2.OBJECT_KIND_NODE, "", "n1")),
            ("pod", obj("pod", namespace="ns", name="p"), (object_pb2.OBJECT_KIND_POD, "ns", "p")),
            ("priority_class", obj("priority_class", name="gold"), (object_pb2.OBJECT_KIND_PRIORITY_CLASS, "", "gold")),
            ("pod_disruption_budget", obj("pod_disruption_budget", namespace="ns", name="b"),
             (object_pb2.OBJECT_KIND_POD_DISRUPTION_BUDGET, "ns", "b")),
            ("namespace", obj("namespace", name="ns"), (object_pb2.OBJECT_KIND_NAMESPACE, "", "ns")),
            ("pod_group", obj("pod_group", namespace="ns", name="g"), (object_pb2.OBJECT_KIND_POD_GROUP, "ns", "g")),
            ("composite_pod_group", obj("composite_pod_group", namespace="ns", name="c"),
             (object_pb2.OBJECT_KIND_COMPOSITE_POD_GROUP, "ns", "c")),
            ("device_class", obj("device_class", name="gpu"), (object_pb2.OBJECT_KIND_DEVICE_CLASS, "", "gpu")),
            ("resource_slice", obj("resource_slice", name="s"), (object_pb2.OBJECT_KIND_RESOURCE_SLICE, "", "s")),
            ("resource_claim", obj("resource_claim", namespace="ns", name="c"),
             (object_pb2.OBJECT_KIND_RESOURCE_CLAIM, "ns", "c")),
            ("resource_claim_template", obj("resource_claim_template", namespace="ns", name="t"),
             (object_pb2.OBJECT_KIND_RESOURCE_CLAIM_TEMPLATE, "ns", "t")),
            ("device_taint_rule", obj("device_taint_rule", name="r"), (object_pb2.OBJECT_KIND_DEVICE_TAINT_RULE, "", "r")),
            ("persistent_volume", obj("persistent_volume", name="pv"), (object_pb2.OBJECT_KIND_PERSISTENT_VOLUME, "", "pv")),
            ("persistent_volume_claim", obj("persistent_volume_claim", namespace="ns", name="c"),
             (object_pb2.OBJECT_KIND_PERSISTENT_VOLUME_CLAIM, "ns", "c")),
            ("storage_class", obj("storage_class", name="fast"), (object_pb2.OBJECT_KIND_STORAGE_CLASS, "", "fast")),
            ("csi_node", obj("csi_node", name="n1"), (object_pb2.OBJECT_KIND_CSI_NODE, "", "n1")),
            ("csi_driver", obj("csi_driver", name="d"), (object_pb2.OBJECT_KIND_CSI_DRIVER, "", "d")),
            ("csi_storage_capacity", obj("csi_storage_capacity", namespace="ns", name="cap"),
             (object_pb2.OBJECT_KIND_CSI_STORAGE_CAPACITY, "ns", "cap")),
            ("resource_flavor", obj("resource_flavor", name="f"), (object_pb2.OBJECT_KIND_RESOURCE_FLAVOR, "", "f")),
            ("cluster_queue", obj("cluster_queue", name="cq"), (object_pb2.OBJECT_KIND_CLUSTER_QUEUE, "", "cq")),
            ("cohort", obj("cohort", name="c"), (object_pb2.OBJECT_KIND_COHORT, "", "c")),
            ("local_queue", obj("local_queue", namespace="ns", name="lq"), (object_pb2.OBJECT_KIND_LOCAL_QUEUE, "ns", "lq")),
            ("workload_priority_class", obj("workload_priority_class", name="high"),
             (object_pb2.OBJECT_KIND_WORKLOAD_PRIORITY_CLASS, "", "high")),
            ("workload", obj("workload", namespace="ns", name="w"), (object_pb2.OBJECT_KIND_WORKLOAD, "ns", "w")),
            ("no kind", object_pb2.Object(), (object_pb2.OBJECT_KIND_UNSPECIFIED, "", "")),
        ]
        kinds = {f.name for f in object_pb2.Object.DESCRIPTOR.oneofs_by_name["kind"].fields}
        self.assertEqual(kinds, {name for name, _, _ in cases if name != "no kind"}, "a kind without a case here")
        for name, o, want in cases:
            with self.subTest(kind=name):
                self.assertEqual(identity(o), want)


if __name__ == "__main__":
    unittest.main()
