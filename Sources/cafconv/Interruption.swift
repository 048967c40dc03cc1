import Conversion
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns SIGINT and SIGTERM into a cancellation of the run: no new file is started, files in
/// flight stop at their next block and delete their temporary files, and `convert` exits 130.
final class Interruption {
    private let sources: [any DispatchSourceSignal]

    /// Starts listening. The default action of both signals is replaced by `SIG_IGN` first, as
    /// Dispatch requires on Linux, so that only the signal sources see them.
    init(_ cancellation: Cancellation) {
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { cancellation.cancel() }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// Stops listening.
    func stop() {
        for source in sources { source.cancel() }
    }
}
