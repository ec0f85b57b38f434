package io.berthsched.berth.client;

/** The watch position was compacted out of Berth's log (OUT_OF_RANGE, REVISION_COMPACTED). */
public final class CompactedException extends BerthException {
  private static final long serialVersionUID = 1L;

  private final long fromRevision;
  private final long oldest;

  public CompactedException(long fromRevision, long oldest, Throwable cause) {
    super("watch from revision " + fromRevision + ": compacted, oldest revision kept is " + oldest,
        cause);
    this.fromRevision = fromRevision;
    this.oldest = oldest;
  }

  public long fromRevision() {
    return fromRevision;
  }

  /** The oldest revision Berth still keeps (0 when berthd did not say). */
  public long oldest() {
    return oldest;
  }
}
