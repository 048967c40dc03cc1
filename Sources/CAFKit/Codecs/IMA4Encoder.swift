/// Encodes 16-bit frames into IMA4 packets by searching for the codes that keep the decoded
/// signal closest to the source.
///
/// Choosing each 4-bit code greedily (what most encoders do) ignores that a code also moves the
/// step size used for every later sample. This encoder runs a beam search (a pruned trellis) over
/// each packet: it keeps the ``Options/searchWidth`` decoder states with the smallest squared
/// error so far, tries for each the codes around the greedy one (``Options/codeRange`` either
/// side), merges paths that reach the same state, and at the end of the packet keeps the path
/// with the least error. The search width is the speed/quality dial; see ``Options/standard``.
///
/// **Packet boundaries.** Each packet's preamble carries the state its decoding starts from, but
/// only the predictor's top 9 bits. Decoders differ in what they do with it: libsndfile (and, as
/// far as can be told, Apple) start from the preamble; ffmpeg keeps its own full-precision
/// predictor when the preamble is a rounding of it with the same step index. So the encoder
/// starts each packet from a state that every decoder reads the same way: the previous packet's
/// end state when its predictor is a multiple of 128, else a nearby state that ffmpeg's rule also
/// reloads (the rounded predictor with the step index one up or down, or the predictor rounded
/// 128 further with the same index). The search picks the best of them, and the codes are chosen
/// from that exact state, so the decoded samples are the same in every decoder.
///
/// **The first packet** starts from whatever state is best: every step index 0-88 is tried with
/// the first sample's rounded predictor, and the one with the least error over the packet wins
/// (a loud attack wants a large first step, silence the smallest).
public struct IMA4Encoder: Sendable {
    /// Search settings.
    public struct Options: Sendable, Equatable {
        /// Decoder states kept at each sample (1 = greedy with merging; ffmpeg's `-trellis N`
        /// keeps 2^N).
        public var searchWidth: Int
        /// Codes tried on either side of the greedy code's magnitude, for the best quarter of
        /// the kept states (the others try the greedy magnitude and, near zero, the other sign).
        public var codeRange: Int

        /// Creates options (width 1-1024, range 0-7).
        public init(searchWidth: Int, codeRange: Int = 1) {
            self.searchWidth = max(1, min(searchWidth, 1024))
            self.codeRange = max(0, min(codeRange, 7))
        }

        /// The default: 12 states, ±1 code. Measured with `bench/ima4-quality.py` (ffmpeg's decoder
        /// grading both), this beats ffmpeg 5.1's `-trellis 8` (256 states) SNR by 0.1-0.15 dB on
        /// music, a sweep and pink noise while encoding about 14 times faster; 8 states ties
        /// ffmpeg on music, 16 gains another 0.05 dB for a third more time, 32 another 0.1 dB
        /// for twice the time.
        public static let standard = Options(searchWidth: 12, codeRange: 1)
        /// Greedy coding (one state), as ffmpeg does by default; for comparisons.
        public static let greedy = Options(searchWidth: 1, codeRange: 0)
    }

    /// Channels per frame.
    public let channels: Int
    /// The search settings.
    public let options: Options
    /// Frames given so far.
    public private(set) var framesIn: UInt64 = 0
    /// Packets produced so far.
    public private(set) var packetsOut: UInt64 = 0

    private var pending: [Int32] = []
    private var endStates: [IMA4.ChannelState]
    private var search: BeamSearch

    /// An encoder for `channels` channels (at least 1).
    public init(channels: Int, options: Options = .standard) {
        precondition(channels > 0, "IMA4Encoder needs at least one channel")
        self.channels = channels
        self.options = options
        endStates = Array(repeating: IMA4.ChannelState(), count: channels)
        search = BeamSearch(width: options.searchWidth, range: options.codeRange)
        pending.reserveCapacity(IMA4.framesPerPacket * channels)
    }

    /// Bytes in one packet.
    public var bytesPerPacket: Int { IMA4.bytesPerPacket(channels: channels) }

    /// Padding frames the last packet will hold (0-63) after the frames given so far.
    public var remainderFrames: Int {
        let partial = Int(framesIn % UInt64(IMA4.framesPerPacket))
        return partial == 0 ? 0 : IMA4.framesPerPacket - partial
    }

    /// Encodes interleaved 16-bit samples (a partial frame at the end is kept for the next call)
    /// and appends every completed packet to `output`.
    public mutating func encode(_ samples: some Collection<Int16>, appendingTo output: inout [UInt8]) {
        for sample in samples { push(Int32(sample), &output) }
    }

    /// Encodes interleaved floating-point samples (full scale ±1.0; each becomes
    /// `round(x * 32768)` clipped to 16 bits, NaN as 0) and appends completed packets to `output`.
    public mutating func encode(floats samples: some Collection<Float>, appendingTo output: inout [UInt8]) {
        for sample in samples {
            let scaled = sample.isNaN ? 0 : (sample * 32768).rounded(.toNearestOrEven)
            push(Int32(max(-32768, min(32767, scaled))), &output)
        }
    }

    /// Encodes interleaved 32-bit integer samples (full scale ±2^31; each keeps its top 16 bits,
    /// rounded to nearest and clipped) and appends completed packets to `output`.
    public mutating func encode(int32 samples: some Collection<Int32>, appendingTo output: inout [UInt8]) {
        for sample in samples {
            let rounded = (Int64(sample) + 0x8000) >> 16
            push(Int32(min(rounded, 32767)), &output)
        }
    }

    @inline(__always)
    private mutating func push(_ sample: Int32, _ output: inout [UInt8]) {
        pending.append(sample)
        if pending.count % channels == 0 { framesIn += 1 }
        if pending.count == IMA4.framesPerPacket * channels { flushPacket(&output) }
    }

    /// Ends the stream: pads the last packet (repeating the last frame, so that a decoder that
    /// ignores `pakt` plays a held sample, not a click) and appends it. Returns the padding frames.
    @discardableResult
    public mutating func finish(appendingTo output: inout [UInt8]) -> Int {
        let whole = pending.count - pending.count % channels
        pending.removeLast(pending.count - whole)
        guard !pending.isEmpty else { return 0 }
        let padding = IMA4.framesPerPacket - pending.count / channels
        let last = Array(pending[(pending.count - channels)...])
        for _ in 0..<padding { pending.append(contentsOf: last) }
        flushPacket(&output)
        return padding
    }

    private mutating func flushPacket(_ output: inout [UInt8]) {
        var target = [Int32](repeating: 0, count: IMA4.framesPerPacket)
        for channel in 0..<channels {
            for frame in 0..<target.count { target[frame] = pending[frame * channels + channel] }
            let starts: [IMA4.ChannelState]
            if packetsOut == 0 {
                starts = Self.firstPacketStarts(firstSample: target[0])
            } else {
                starts = Self.continuationStarts(after: endStates[channel], next: target[0], following: target[1])
            }
            if !isKnownUniquelyReferenced(&search) {
                search = BeamSearch(width: options.searchWidth, range: options.codeRange)
            }
            let result = search.run(target: target, starts: starts, trySeparately: packetsOut == 0)
            let (high, low) = IMA4.preamble(predictor: result.start.predictor, stepIndex: result.start.stepIndex)
            output.append(high)
            output.append(low)
            for pair in 0..<32 { output.append(result.codes[2 * pair] | result.codes[2 * pair + 1] << 4) }
            endStates[channel] = result.end
        }
        pending.removeAll(keepingCapacity: true)
        packetsOut += 1
    }

    /// Start states for the first packet: each step index with the first sample rounded down and
    /// up to a multiple of 128.
    static func firstPacketStarts(firstSample: Int32) -> [IMA4.ChannelState] {
        let low = firstSample & ~0x7F
        var predictors = [low]
        if low + 128 <= 32640 { predictors.append(low + 128) }
        var starts: [IMA4.ChannelState] = []
        for index in 0...IMA4.maxStepIndex {
            for predictor in predictors { starts.append(IMA4.ChannelState(predictor: predictor, stepIndex: index)) }
        }
        return starts
    }

    /// States a packet may start from after a packet that ended in `end`, each one decoded the
    /// same by decoders that always reload the preamble and by ffmpeg's (see the type's notes):
    /// states next to `end` and, when the signal jumps at the packet boundary (the first sample
    /// `next` is out of one code's reach), fresh states at `next` with `end`'s step index and
    /// with one sized for the jump from `next` to `following`.
    static func continuationStarts(after end: IMA4.ChannelState, next: Int32, following: Int32) -> [IMA4.ChannelState] {
        let low = end.predictor & ~0x7F
        var starts: [IMA4.ChannelState] = []
        func add(_ predictor: Int32, _ index: Int32) {
            guard predictor >= -32768, predictor <= 32640, index >= 0, index <= IMA4.maxStepIndex else { return }
            // ffmpeg would keep `end`'s own predictor instead: only the exact end state is then safe.
            if index == end.stepIndex && abs(predictor - end.predictor) <= 0x7F && predictor != end.predictor { return }
            let state = IMA4.ChannelState(predictor: predictor, stepIndex: index)
            if !starts.contains(state) { starts.append(state) }
        }
        if end.predictor == low { add(end.predictor, end.stepIndex) }
        for index in [end.stepIndex - 1, end.stepIndex + 1] {
            add(low, index)
            add(low + 128, index)
        }
        add(low - 128, end.stepIndex)
        add(low + 256, end.stepIndex)
        // Only when the first sample is out of one code's reach: otherwise fresh states win the
        // first sample and crowd out better paths.
        guard abs(next - end.predictor) > 2 * IMA4.stepTable[Int(end.stepIndex)] else { return starts }
        let fresh = next & ~0x7F
        let jump = abs(following - next)
        var jumpIndex: Int32 = 0
        while jumpIndex < IMA4.maxStepIndex && IMA4.stepTable[Int(jumpIndex)] < jump { jumpIndex += 1 }
        for index in [end.stepIndex, jumpIndex] {
            add(fresh, index)
            add(fresh + 128, index)
        }
        return starts
    }
}

/// The beam search over one channel's packet, with its scratch memory (allocated once).
///
/// A class so that the scratch is reused packet after packet; ``IMA4Encoder`` copies it before
/// use when the encoder value was copied, so two encoders never share it.
final class BeamSearch: @unchecked Sendable {
    struct Result {
        var codes: [UInt8]
        var start: IMA4.ChannelState
        var end: IMA4.ChannelState
        var cost: Int64
    }

    let width: Int
    let range: Int
    /// The most samples one search covers: a packet.
    static let maxSamples = IMA4.framesPerPacket
    /// The most start states of one search (the first packet tries them one by one).
    static let maxStarts = 16
    private let capacity: Int
    private let poolCapacity: Int
    /// `difference(step:magnitude:)` and the next step index, for index*8 + magnitude.
    private let differences: UnsafeMutablePointer<Int32>
    private let nextIndex: UnsafeMutablePointer<Int32>
    // Nodes (current and next), as separate arrays.
    private let predictors: UnsafeMutablePointer<Int32>
    private let indices: UnsafeMutablePointer<Int32>
    private let costs: UnsafeMutablePointer<Int64>
    private let origins: UnsafeMutablePointer<Int32>
    private let nextPredictors: UnsafeMutablePointer<Int32>
    private let nextIndices: UnsafeMutablePointer<Int32>
    private let nextCosts: UnsafeMutablePointer<Int64>
    private let nextOrigins: UnsafeMutablePointer<Int32>
    // Trace: parent slot and code of every kept node at every sample.
    private let parents: UnsafeMutablePointer<Int32>
    private let codes: UnsafeMutablePointer<UInt8>
    // Candidates of one sample.
    private let poolPredictor: UnsafeMutablePointer<Int32>
    private let poolIndex: UnsafeMutablePointer<Int32>
    private let poolCost: UnsafeMutablePointer<Int64>
    private let poolParent: UnsafeMutablePointer<Int32>
    private let poolCode: UnsafeMutablePointer<UInt8>
    private let order: UnsafeMutablePointer<Int32>
    private let heapPosition: UnsafeMutablePointer<Int32>
    // State -> candidate, for merging paths that reach the same state (stamped per sample).
    private static let hashBits = 10
    private let hashStamp: UnsafeMutablePointer<Int32>
    private let hashKey: UnsafeMutablePointer<Int32>
    private let hashSlot: UnsafeMutablePointer<Int32>
    private var stamp: Int32 = 0

    /// Paths whose predictors fall in the same 1/2^mergeBits of the step are merged.
    static let mergeBits: Int32 = 4
    private let mergeShift: UnsafeMutablePointer<Int32>
    /// 4 * 65536 / step, rounded up: the greedy magnitude is |delta| * reciprocal >> 16.
    private let reciprocals: UnsafeMutablePointer<UInt32>

    init(width: Int, range: Int) {
        self.width = width
        self.range = range
        mergeShift = .allocate(capacity: 89)
        reciprocals = .allocate(capacity: 89)
        for index in 0..<89 {
            let step = UInt32(IMA4.stepTable[index])
            reciprocals[index] = (4 * 65536 + step - 1) / step
        }
        for index in 0..<89 {
            // log2(step) - mergeBits, at least 0
            let step = IMA4.stepTable[index]
            let log = Int32(31 - step.leadingZeroBitCount)
            mergeShift[index] = max(0, log - Self.mergeBits)
        }
        capacity = max(width, Self.maxStarts)
        poolCapacity = capacity * (2 * range + 2)
        differences = .allocate(capacity: 89 * 8)
        nextIndex = .allocate(capacity: 89 * 8)
        for index in 0...Int(IMA4.maxStepIndex) {
            for magnitude in 0..<8 {
                differences[index * 8 + magnitude] = IMA4.difference(step: IMA4.stepTable[index], magnitude: Int32(magnitude))
                nextIndex[index * 8 + magnitude] = min(
                    max(Int32(index) + IMA4.indexAdjustment[magnitude], 0), IMA4.maxStepIndex)
            }
        }
        predictors = .allocate(capacity: capacity)
        indices = .allocate(capacity: capacity)
        costs = .allocate(capacity: capacity)
        origins = .allocate(capacity: capacity)
        nextPredictors = .allocate(capacity: capacity)
        nextIndices = .allocate(capacity: capacity)
        nextCosts = .allocate(capacity: capacity)
        nextOrigins = .allocate(capacity: capacity)
        parents = .allocate(capacity: Self.maxSamples * capacity)
        codes = .allocate(capacity: Self.maxSamples * capacity)
        poolPredictor = .allocate(capacity: poolCapacity)
        poolIndex = .allocate(capacity: poolCapacity)
        poolCost = .allocate(capacity: poolCapacity)
        poolParent = .allocate(capacity: poolCapacity)
        poolCode = .allocate(capacity: poolCapacity)
        order = .allocate(capacity: capacity)
        heapPosition = .allocate(capacity: poolCapacity)
        let hashSize = 1 << Self.hashBits
        hashStamp = .allocate(capacity: hashSize)
        hashStamp.initialize(repeating: -1, count: hashSize)
        hashKey = .allocate(capacity: hashSize)
        hashKey.initialize(repeating: 0, count: hashSize)
        hashSlot = .allocate(capacity: hashSize)
        hashSlot.initialize(repeating: 0, count: hashSize)
    }

    deinit {
        for pointer in [
            differences, nextIndex, predictors, indices, origins, nextPredictors, nextIndices, nextOrigins,
            parents, poolPredictor, poolIndex, poolParent, order, heapPosition, mergeShift, hashStamp, hashKey, hashSlot,
        ] as [UnsafeMutablePointer<Int32>] {
            pointer.deallocate()
        }
        for pointer in [costs, nextCosts, poolCost] { pointer.deallocate() }
        for pointer in [codes, poolCode] { pointer.deallocate() }
        reciprocals.deallocate()
    }

    /// The best codes for `target` (at most ``maxSamples`` samples) from any of `starts` (the
    /// first ``maxStarts`` of them). With `trySeparately`, each start is searched on its own (so
    /// that none is pruned early) and the best result is kept.
    func run(target: [Int32], starts: [IMA4.ChannelState], trySeparately: Bool) -> Result {
        if trySeparately {
            var best = runBeam(target: target, starts: starts[0..<1])
            for position in starts.indices.dropFirst() {
                let result = runBeam(target: target, starts: starts[position...position])
                if result.cost < best.cost { best = result }
            }
            return best
        }
        return runBeam(target: target, starts: starts[...])
    }

    /// The search proper: the beam keeps the `width` cheapest paths (squared error so far) after
    /// each sample, each extended by the codes near the greedy one, and the cheapest path at the
    /// end is traced back.
    private func runBeam(target: [Int32], starts: ArraySlice<IMA4.ChannelState>) -> Result {
        let count = min(target.count, Self.maxSamples)
        var nodes = Nodes(predictors: predictors, indices: indices, costs: costs, origins: origins)
        var next = Nodes(predictors: nextPredictors, indices: nextIndices, costs: nextCosts, origins: nextOrigins)
        var live = seed(&nodes, from: starts)
        var candidates = Candidates(
            width: width, predictor: poolPredictor, index: poolIndex, cost: poolCost, parent: poolParent, code: poolCode,
            order: order, heapPosition: heapPosition, hashStamp: hashStamp, hashKey: hashKey, hashSlot: hashSlot,
            mergeShift: mergeShift)
        let codes = Codes(
            differences: differences, nextIndex: nextIndex, reciprocals: reciprocals, range: Int32(range),
            wideNodes: max(1, width / 4))
        target.withUnsafeBufferPointer { target in
            for t in 0..<count {
                candidates.begin(stamp: nextStamp())
                for node in 0..<live {
                    // The nodes are sorted: once the beam is full, no later one can do better.
                    if candidates.isFull && nodes.costs[node] >= candidates.rootCost { break }
                    codes.extend(node, of: nodes, toward: target[t], into: &candidates)
                }
                candidates.sortKept()
                keep(candidates, from: nodes, into: next, sample: t)
                swap(&nodes, &next)
                live = candidates.kept
            }
        }
        return traceBack(count: count, nodes: nodes, live: live, starts: starts)
    }

    /// One generation of the beam, as separate arrays: each node's state, the cost of its path
    /// and the index (into `starts`) of the start it came from.
    private struct Nodes {
        var predictors: UnsafeMutablePointer<Int32>
        var indices: UnsafeMutablePointer<Int32>
        var costs: UnsafeMutablePointer<Int64>
        var origins: UnsafeMutablePointer<Int32>
    }

    /// The first generation: the start states (at most `capacity`), at no cost. Returns their
    /// number.
    private func seed(_ nodes: inout Nodes, from starts: ArraySlice<IMA4.ChannelState>) -> Int {
        var live = 0
        for start in starts.prefix(capacity) {
            nodes.predictors[live] = start.predictor
            nodes.indices[live] = start.stepIndex
            nodes.costs[live] = 0
            nodes.origins[live] = Int32(starts.startIndex + live)
            live += 1
        }
        return live
    }

    /// A new stamp for the merge hash (its slots stamped with an older one are empty); the
    /// stamps start again, with the slots cleared, before they would overflow.
    private func nextStamp() -> Int32 {
        if stamp == Int32.max {
            hashStamp.update(repeating: -1, count: 1 << Self.hashBits)
            stamp = 0
        }
        stamp += 1
        return stamp
    }

    /// The codes tried from a node: the greedy magnitude (|delta| / step, without dividing) and
    /// those within `range` of it (one less for the nodes past the best quarter, which seldom
    /// win), and a zero of the other sign when the greedy magnitude is 0.
    private struct Codes {
        /// `difference(step:magnitude:)` and the next step index, for index*8 + magnitude.
        let differences: UnsafeMutablePointer<Int32>
        let nextIndex: UnsafeMutablePointer<Int32>
        let reciprocals: UnsafeMutablePointer<UInt32>
        let range: Int32
        let wideNodes: Int

        @inline(__always)
        func extend(_ node: Int, of nodes: Nodes, toward x: Int32, into candidates: inout Candidates) {
            let predictor = nodes.predictors[node]
            let index = nodes.indices[node]
            let cost = nodes.costs[node]
            let delta = x &- predictor
            let sign: Int32 = delta < 0 ? 8 : 0
            let magnitude = Int32(truncatingIfNeeded: min(7, (UInt32(abs(delta)) &* reciprocals[Int(index)]) &>> 16))
            let nodeRange = node < wideNodes ? range : max(0, range &- 1)
            var m = max(0, magnitude &- nodeRange)
            let high = min(7, magnitude &+ nodeRange)
            var extra = magnitude == 0
            while m <= high || extra {
                let codeSign: Int32
                let codeMagnitude: Int32
                if m <= high {
                    codeSign = sign
                    codeMagnitude = m
                    m &+= 1
                } else {
                    codeSign = sign ^ 8
                    codeMagnitude = 0
                    extra = false
                }
                let table = Int(index &* 8 &+ codeMagnitude)
                let diff = differences[table]
                let next = min(max(codeSign == 0 ? predictor &+ diff : predictor &- diff, -32768), 32767)
                let error = Int64(x &- next)
                candidates.offer(
                    predictor: next, stepIndex: nextIndex[table], cost: cost &+ error &* error, parent: node,
                    code: UInt8(truncatingIfNeeded: codeSign | codeMagnitude))
            }
        }
    }

    /// The candidates of one sample: the pool of paths one code longer, the `width` cheapest of
    /// them in a max-heap on cost (`order`, whose root is the worst kept; `heapPosition[entry]` is
    /// where an entry sits in it, -1 once pushed out), and a hash from the state a path reaches
    /// to its entry, so that paths reaching the same step index and nearly the same predictor
    /// are merged (the cheaper one kept).
    private struct Candidates {
        let width: Int
        let predictor: UnsafeMutablePointer<Int32>
        let index: UnsafeMutablePointer<Int32>
        let cost: UnsafeMutablePointer<Int64>
        let parent: UnsafeMutablePointer<Int32>
        let code: UnsafeMutablePointer<UInt8>
        let order: UnsafeMutablePointer<Int32>
        let heapPosition: UnsafeMutablePointer<Int32>
        let hashStamp: UnsafeMutablePointer<Int32>
        let hashKey: UnsafeMutablePointer<Int32>
        let hashSlot: UnsafeMutablePointer<Int32>
        let mergeShift: UnsafeMutablePointer<Int32>
        var stamp: Int32 = 0
        var pool = 0
        var kept = 0
        var rootCost = Int64.max

        var isFull: Bool { kept == width }

        mutating func begin(stamp: Int32) {
            self.stamp = stamp
            pool = 0
            kept = 0
            rootCost = .max
        }

        /// Adds a path unless the beam is full of cheaper ones or a cheaper path reaches the
        /// same state.
        @inline(__always)
        mutating func offer(predictor next: Int32, stepIndex: Int32, cost total: Int64, parent node: Int, code: UInt8) {
            if kept == width && total >= rootCost { return }
            let key = ((next &+ 32768) &>> mergeShift[Int(stepIndex)]) &<< 7 | stepIndex
            let (h, found) = lookUp(key)
            var entry = found
            var position: Int
            if entry >= 0 {
                if total >= cost[entry] { return }
                position = Int(heapPosition[entry])
                if position < 0 {
                    // Pushed out earlier, better now: it replaces the root.
                    heapPosition[Int(order[0])] = -1
                    position = 0
                    order[0] = Int32(truncatingIfNeeded: entry)
                }
            } else {
                hashStamp[h] = stamp
                hashKey[h] = key
                hashSlot[h] = Int32(truncatingIfNeeded: pool)
                entry = pool
                pool &+= 1
                if kept < width {
                    position = kept
                    kept &+= 1
                } else {
                    heapPosition[Int(order[0])] = -1
                    position = 0
                }
                order[position] = Int32(truncatingIfNeeded: entry)
            }
            predictor[entry] = next
            index[entry] = stepIndex
            cost[entry] = total
            parent[entry] = Int32(truncatingIfNeeded: node)
            self.code[entry] = code
            settle(entry, at: position, cost: total)
            if kept == width { rootCost = cost[Int(order[0])] }
        }

        /// The hash slot of `key` and its entry, or the empty slot where it goes and -1.
        @inline(__always)
        func lookUp(_ key: Int32) -> (slot: Int, entry: Int) {
            let mask = (1 << BeamSearch.hashBits) - 1
            var h = Int(truncatingIfNeeded: (UInt32(bitPattern: key) &* 2_654_435_761) &>> UInt32(32 - BeamSearch.hashBits))
            while hashStamp[h] == stamp {
                if hashKey[h] == key { return (h, Int(hashSlot[h])) }
                h = (h &+ 1) & mask
            }
            return (h, -1)
        }

        /// Restores the heap around `position`, whose entry's cost changed: up if it is now
        /// worse than its parent, else down.
        @inline(__always)
        func settle(_ entry: Int, at start: Int, cost total: Int64) {
            var position = start
            while position > 0 {
                let parent = (position &- 1) &>> 1
                let parentEntry = Int(order[parent])
                if cost[parentEntry] >= total { break }
                order[position] = Int32(truncatingIfNeeded: parentEntry)
                heapPosition[parentEntry] = Int32(truncatingIfNeeded: position)
                position = parent
            }
            while true {
                var child = 2 &* position &+ 1
                if child >= kept { break }
                if child &+ 1 < kept && cost[Int(order[child &+ 1])] > cost[Int(order[child])] {
                    child &+= 1
                }
                let childEntry = Int(order[child])
                if cost[childEntry] <= total { break }
                order[position] = Int32(truncatingIfNeeded: childEntry)
                heapPosition[childEntry] = Int32(truncatingIfNeeded: position)
                position = child
            }
            order[position] = Int32(truncatingIfNeeded: entry)
            heapPosition[entry] = Int32(truncatingIfNeeded: position)
        }

        /// Sorts the kept entries best first (insertion sort: there are `width` of them).
        func sortKept() {
            for slot in 0..<kept {
                let entry = order[slot]
                let entryCost = cost[Int(entry)]
                var position = slot
                while position > 0 && cost[Int(order[position &- 1])] > entryCost {
                    order[position] = order[position &- 1]
                    position &-= 1
                }
                order[position] = entry
            }
        }
    }

    /// The kept candidates, sorted, become the next generation; each one's parent node and code
    /// are recorded for the trace back.
    private func keep(_ candidates: Candidates, from nodes: Nodes, into next: Nodes, sample t: Int) {
        let traceBase = t &* capacity
        for slot in 0..<candidates.kept {
            let candidate = Int(candidates.order[slot])
            next.predictors[slot] = candidates.predictor[candidate]
            next.indices[slot] = candidates.index[candidate]
            next.costs[slot] = candidates.cost[candidate]
            let parent = Int(candidates.parent[candidate])
            next.origins[slot] = nodes.origins[parent]
            parents[traceBase &+ slot] = Int32(truncatingIfNeeded: parent)
            codes[traceBase &+ slot] = candidates.code[candidate]
        }
    }

    /// The codes of the cheapest path of the last generation, from its parents, and its start
    /// and end states.
    private func traceBack(count: Int, nodes: Nodes, live: Int, starts: ArraySlice<IMA4.ChannelState>) -> Result {
        var best = 0
        for slot in 1..<max(live, 1) where nodes.costs[slot] < nodes.costs[best] { best = slot }
        var result = [UInt8](repeating: 0, count: count)
        var slot = best
        var t = count - 1
        while t >= 0 {
            result[t] = codes[t * capacity + slot]
            slot = Int(parents[t * capacity + slot])
            t -= 1
        }
        return Result(
            codes: result, start: starts[Int(nodes.origins[best])],
            end: IMA4.ChannelState(predictor: nodes.predictors[best], stepIndex: nodes.indices[best]), cost: nodes.costs[best])
    }
}
