import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import SystemLayer
import Transcoding
import Verification

/// Turns SIGINT and SIGTERM into a cancellation of the run: no new file is started, files in
/// flight stop at their next block and delete their temporary files, and `convert` exits 130.
///
/// The handler (in `CSystemCalls`) only records the signal; the cancellation reads that record
/// whenever the engine asks. No thread is started, so a one-file run stays single-threaded.
final class Interruption {
    /// The cancellation to hand to the engine: set when either signal arrives.
    let cancellation = Cancellation(also: { cafconv_interrupt_received() != 0 })

    /// Starts listening.
    init() { cafconv_watch_interrupts() }

    /// Stops listening: the signals get their previous actions back.
    func stop() { cafconv_unwatch_interrupts() }
}
