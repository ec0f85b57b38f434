package io.berthsched.berth.client;

import static io.berthsched.berth.client.Fixtures.bind;
import static io.berthsched.berth.client.Fixtures.client;
import static io.berthsched.berth.client.Fixtures.name;
import static io.berthsched.berth.client.Fixtures.node;
import static io.berthsched.berth.client.Fixtures.pod;
import static io.berthsched.berth.client.Fixtures.podRef;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.berthsched.berth.v1.BindOutcome;
import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.ReportBindResultRequest;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientTest {
  @Test
  void applySplitsAtMaxBatchAndNumbersErrorsFromTheFirstObject() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("apply"));
        Client c = client(fake.name).maxBatch(2).build()) {
      fake.refuse = o -> o.getPod().getName().equals("bad") ? FakeBerthd.invalid("pod.uid", "required") : null;
      List<Object> objs = List.of(node("n1"), pod("a"), pod("b"), pod("bad"), pod("c"));
      BatchException e = assertThrows(BatchException.class, () -> c.apply(objs));
      assertEquals(4, e.applied());
      assertEquals(1, e.errors().size());
      ObjectError oe = e.errors().get(0);
      assertEquals(3, oe.index(), "the index in the caller's list, not in the second request");
      assertEquals(Status.Code.INVALID_ARGUMENT, oe.code());
      assertEquals("pod.uid", oe.fieldPath());
      assertEquals("object 3: INVALID_ARGUMENT: pod.uid: required", oe.toString());
      List<Integer> sizes = new ArrayList<>();
      fake.applies.forEach(a -> sizes.add(a.getObjectsCount()));
      assertEquals(List.of(2, 2, 1), sizes);
    }
  }

  @Test
  void deleteOfWhatBerthDoesNotHoldIsSuccess() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("delete")); Client c = client(fake.name).build()) {
      c.apply(pod("a"));
      c.delete(podRef("a"), podRef("never-sent"));
      assertEquals(0, fake.objects.size());
    }
  }

  @Test
  void aRequestTooLargeIsNotRetried() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("large")); Client c = client(fake.name).build()) {
      fake.maxBatch = 1;
      RequestTooLargeException e = assertThrows(RequestTooLargeException.class,
          () -> c.apply(pod("a"), pod("b")));
      assertEquals(Status.Code.RESOURCE_EXHAUSTED, Errors.code(e.getCause()));
      assertEquals(1, fake.applies.size());
    }
  }

  @Test
  void theTokenTravelsWithEveryCall() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("token")); Client c = client(fake.name).token("s3cret").build()) {
      c.apply(node("n1"));
      c.confirmBind(bind("a", "n1").toBuilder().setRevision(7).build());
      assertEquals(List.of("Bearer s3cret", "Bearer s3cret"), fake.authorizations);
    }
  }

  @Test
  void bindOutcomesNameThePodNodeAndRevision() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("outcome")); Client c = client(fake.name).build()) {
      c.confirmBind(bind("a", "n1").toBuilder().setRevision(7).build());
      c.failBind(bind("b", "n2").toBuilder().setRevision(8).build(), "image pull failed");
      ReportBindResultRequest confirmed = fake.reports.get(0);
      assertEquals("a", confirmed.getPod().getName());
      assertEquals("a-uid", confirmed.getPod().getUid());
      assertEquals("n1", confirmed.getNode());
      assertEquals(7, confirmed.getRevision());
      assertEquals(BindOutcome.BIND_OUTCOME_CONFIRMED, confirmed.getOutcome());
      ReportBindResultRequest failed = fake.reports.get(1);
      assertEquals(BindOutcome.BIND_OUTCOME_FAILED, failed.getOutcome());
      assertEquals("image pull failed", failed.getReason());
      assertEquals(8, failed.getRevision());
      assertThrows(IllegalArgumentException.class,
          () -> c.confirmBind(bind("a", "n1").toBuilder().clearBind().build()));
    }
  }

  @Test
  void evictions() throws Exception {
    try (FakeBerthd fake = new FakeBerthd(name("evict")); Client c = client(fake.name).build()) {
      assertEquals(7, c.evict("ns", "free", Client.evictOptions().gracePeriodSeconds(0)).getRevision());
      assertEquals(true, fake.evictions.get(0).hasGracePeriodSeconds(), "0 is sent: kill at once");
      assertEquals(0, c.evict("ns", "free", Client.evictOptions().dryRun(true)).getRevision());
      assertEquals(false, fake.evictions.get(1).hasGracePeriodSeconds(), "unset: the pod's own");

      BudgetRefusedException refused = assertThrows(BudgetRefusedException.class,
          () -> c.evict("ns", "guarded", Client.evictOptions()));
      assertEquals("ns/web", refused.budget());
      assertEquals(java.time.Duration.ofSeconds(5), refused.retryAfter());
      assertEquals(Status.Code.RESOURCE_EXHAUSTED, Errors.code(refused.getCause()));

      io.grpc.StatusRuntimeException missing = assertThrows(io.grpc.StatusRuntimeException.class,
          () -> c.evict("ns", "nobody", Client.evictOptions()));
      assertEquals(Status.Code.NOT_FOUND, missing.getStatus().getCode());
    }
  }

  @Test
  void mismatchedClientCertificateSettingsAreRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Client.builder("127.0.0.1:1").clientCertificate(new byte[0], new byte[0]).build());
    assertEquals(true, e.getMessage().startsWith("berth: TLS settings"), e.getMessage());
  }
}
