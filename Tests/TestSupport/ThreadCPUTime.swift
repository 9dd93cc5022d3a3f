#if canImport(Glibc)
    import Glibc
#endif

/// The processor time the calling thread spends: for bounds on how much work a parser does. Unlike
/// the wall clock it hardly grows when other processes share the cores, so a bound on it holds on a
/// loaded machine, while a blow-up that is not linear still breaks it by far.
public enum ThreadCPUTime {
    /// The processor time this thread spent running `work` (synchronous, so it stays on this thread).
    public static func measure(_ work: () throws -> Void) rethrows -> Duration {
        let start = now()
        try work()
        return now() - start
    }

    /// This thread's processor time so far.
    public static func now() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
