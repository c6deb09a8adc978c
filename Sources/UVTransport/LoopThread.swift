#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The POSIX thread calls whose Swift types differ by platform: `pthread_t` is a pointer on Darwin and an integer
/// on Linux, and `pthread_create`'s entry point takes a non-optional argument on Darwin only.
enum LoopThread {
    /// The calling thread's identity as a number, never 0 for a live thread.
    static func currentID() -> UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// Starts a joinable thread that runs `body`.
    /// - Precondition: the process can start a thread (when it cannot, nothing can run).
    static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        let result = pthread_create(&thread, nil, { arg in
            Unmanaged<Body>.fromOpaque(arg).takeRetainedValue().run()
            return nil
        }, box)
        precondition(result == 0 && thread != nil, "pthread_create failed: \(result)")
        return thread!
        #else
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { arg in
            guard let arg else { return nil }
            Unmanaged<Body>.fromOpaque(arg).takeRetainedValue().run()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed: \(result)")
        return thread
        #endif
    }

    /// The thread's work, retained until the thread has run it.
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
