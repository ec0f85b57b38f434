package io.berthsched.berth.client;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.berthsched.berth.v1.Mutation;
import io.berthsched.berth.v1.Object;
import io.berthsched.berth.v1.ObjectKind;
import java.util.Objects;

/**
 * An object's identity within Berth: its kind, namespace (for namespaced kinds) and name. The
 * kind is the number of the Object oneof's field (berth.v1 gives a kind and its field the same
 * number), the namespace the message's own "namespace" field, so kinds added to the API later
 * need no change here.
 */
final class Identity {
  final ObjectKind kind;
  final String namespace;
  final String name;

  private Identity(ObjectKind kind, String namespace, String name) {
    this.kind = kind;
    this.namespace = namespace;
    this.name = name;
  }

  static Identity of(Object o) {
    FieldDescriptor f = null;
    for (FieldDescriptor fd : Object.getDescriptor().getOneofs().get(0).getFields()) {
      if (o.hasField(fd)) {
        f = fd;
        break;
      }
    }
    if (f == null || f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
      return new Identity(ObjectKind.OBJECT_KIND_UNSPECIFIED, "", "");
    }
    Message m = (Message) o.getField(f);
    ObjectKind kind = ObjectKind.forNumber(f.getNumber());
    return new Identity(kind == null ? ObjectKind.OBJECT_KIND_UNSPECIFIED : kind,
        stringField(m, "namespace"), stringField(m, "name"));
  }

  /** The kind a mutation changes. */
  static ObjectKind kindOf(Mutation m) {
    return m.hasDelete() ? m.getDelete().getKind() : of(m.getUpsert()).kind;
  }

  private static String stringField(Message m, String field) {
    FieldDescriptor fd = m.getDescriptorForType().findFieldByName(field);
    if (fd == null || fd.getJavaType() != FieldDescriptor.JavaType.STRING || fd.isRepeated()) {
      return "";
    }
    return (String) m.getField(fd);
  }

  @Override
  public boolean equals(java.lang.Object other) {
    if (!(other instanceof Identity)) {
      return false;
    }
    Identity i = (Identity) other;
    return kind == i.kind && namespace.equals(i.namespace) && name.equals(i.name);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, namespace, name);
  }
}
