import BinaryIO
import ConversionModel
import Synchronization
import SystemLayer

/// Writes and deletes inside an output folder that someone else may write too.
///
/// The output root is the folder the user named (`-o`, the folder of a single `-o` file, or the
/// folder of an input when writing beside it); it is opened once, following symlinks, as any
/// path the user types. Below it nothing is followed: each folder is opened with `openat` and
/// `O_NOFOLLOW`, files are created with `O_EXCL | O_NOFOLLOW` under names nobody can guess, and
/// deletes and renames are `unlinkat`/`renameat` inside the open folder. So a symlink planted in
/// the output tree (`out/evil -> /etc`) makes a write or a prune fail with a clear reason; it
/// never sends it elsewhere.
extension FileSystem {
    /// An open folder; closed when freed.
    package final class Folder: Sendable {
        package let descriptor: Int32
        /// The folder's path, for messages.
        package let path: String
        /// The path the user named for the output root this folder lies in, and what that root
        /// was when it was opened: ``isRootInPlace`` tells whether the path still names it.
        package let rootPath: String
        package let rootIdentity: Identity

        package init(descriptor: Int32, path: String, rootPath: String, rootIdentity: Identity) {
            self.descriptor = descriptor
            self.path = path
            self.rootPath = rootPath
            self.rootIdentity = rootIdentity
        }

        deinit { close(descriptor) }

        /// Opens the folder at `path`, following symlinks (the root the user named).
        package static func open(_ path: String) throws(ConversionError) -> Folder {
            let fd = withPath(path.isEmpty ? "." : path) { Syscall.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            guard fd >= 0 else {
                throw ConversionError.output(.folderNotOpened(path: path, errno: errno))
            }
            var info = FileStatus()
            _ = fstat(fd, &info)
            let identity = Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            return Folder(descriptor: fd, path: path, rootPath: path.isEmpty ? "." : path, rootIdentity: identity)
        }

        /// A path that names this very folder whatever becomes of ``path`` (`/proc/self/fd/N` where
        /// /proc is mounted), for the readers that take a path: a read-back goes where the write went.
        package var openedPath: String { FileSystem.hasProcessFolder ? FileSystem.descriptorPath(descriptor) : path }

        /// Whether the root's path still names the folder that was opened for it (not moved away,
        /// not swapped for a symlink to somewhere else).
        package var isRootInPlace: Bool {
            var info = FileStatus()
            guard FileSystem.status(rootPath, &info) == 0 else { return false }
            return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) == rootIdentity
        }

        /// A second descriptor of the same folder, for a lock that must end with the caller's
        /// work (an `flock` belongs to the open file, and this one may be shared by the run).
        package func reopened() throws(ConversionError) -> Folder {
            let fd = openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else {
                throw ConversionError.output(.folderNotOpened(path: path, errno: errno))
            }
            return Folder(descriptor: fd, path: path, rootPath: rootPath, rootIdentity: rootIdentity)
        }

        /// The sub-folder `name`, never through a symlink; created when `create` and missing.
        package func child(_ name: String, create: Bool) throws(ConversionError) -> Folder {
            let childPath = joined(path, name)
            func openIt() -> Int32 {
                withPath(name) { openat(descriptor, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            }
            var fd = openIt()
            if fd < 0 && errno == ENOENT && create {
                if withPath(name, { mkdirat(descriptor, $0, 0o777) }) != 0 && errno != EEXIST {
                    throw ConversionError.output(.folderNotCreated(path: childPath, errno: errno))
                }
                fd = openIt()
            }
            guard fd >= 0 else {
                let code = errno
                var info = FileStatus()
                if withPath(name, { fstatat(descriptor, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0 {
                    if (info.st_mode & S_IFMT) == S_IFLNK {
                        throw ConversionError.output(.symbolicLink(path: childPath))
                    }
                    if (info.st_mode & S_IFMT) != S_IFDIR {
                        throw ConversionError.output(.fileInTheWay(path: childPath))
                    }
                }
                throw ConversionError.output(.folderNotOpened(path: childPath, errno: code))
            }
            return Folder(descriptor: fd, path: childPath, rootPath: rootPath, rootIdentity: rootIdentity)
        }

        /// The folder `components` below this one, each opened without following symlinks.
        package func descendant(_ components: some Sequence<Substring>, create: Bool) throws(ConversionError) -> Folder {
            var folder = self
            for component in components where !component.isEmpty && component != "." {
                folder = try folder.child(String(component), create: create)
            }
            return folder
        }

        /// What `name` in this folder is, without following a symlink.
        package func info(_ name: String) -> FileStatus? {
            var info = FileStatus()
            guard withPath(name, { fstatat(descriptor, $0, &info, AT_SYMLINK_NOFOLLOW) }) == 0 else { return nil }
            return info
        }

        /// Takes this folder's `flock`, waiting at most `seconds`; `false` when another process
        /// kept it (or the file system has no locks).
        package func lock(waitingAtMost seconds: Double) -> Bool {
            let deadline = now() + UInt64(seconds * 1e9)
            while true {
                if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
                if errno != EWOULDBLOCK && errno != EINTR { return false }
                if now() > deadline { return false }
                usleep(5_000)
            }
        }
    }

    /// The folder an output goes into, opened below its root without following any symlink
    /// (missing folders are created): `root` itself is opened as the user named it, once per run
    /// (``OpenedRoots``).
    package static func outputFolder(for output: String, root: String) throws(ConversionError) -> Folder {
        let parent = directoryName(output)
        let rootPath = root.isEmpty ? "." : root
        var below: Substring = ""
        if parent != rootPath {
            let prefix = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
            if rootPath != "." && parent.hasPrefix(prefix) {
                below = parent.dropFirst(prefix.count)
            } else if rootPath == "." && !parent.hasPrefix("/") {
                below = Substring(parent)
            } else {
                // Not below the root (a caller that named no root): the output's own folder is the root.
                return try OpenedRoots.folder(parent, create: true)
            }
        }
        return try OpenedRoots.folder(rootPath, create: true).descendant(below.split(separator: "/"), create: true)
    }

    /// The output roots of the runs in progress, each resolved from its path once and then used by
    /// descriptor: a root moved or swapped for a symlink while a run goes on cannot send later
    /// outputs, read-backs or the manifest elsewhere. Outside a run (``beginRun()`` ...
    /// ``endRun()``) every call opens the folder afresh.
    package enum OpenedRoots {
        private struct State {
            package var runs = 0
            package var folders: [String: Folder] = [:]
        }
        private static let state = Mutex(State())

        package static func beginRun() { state.withLock { $0.runs += 1 } }

        /// Ends a run; the roots are closed once no run is in progress.
        package static func endRun() {
            // The folders are handed out of the lock, so their descriptors close after it.
            _ = state.withLock { state -> [String: Folder] in
                state.runs -= 1
                guard state.runs <= 0 else { return [:] }
                state.runs = 0
                defer { state.folders = [:] }
                return state.folders
            }
        }

        /// The root at `path` (created with its parents when `create` and missing).
        package static func folder(_ path: String, create: Bool) throws(ConversionError) -> Folder {
            let key = path.isEmpty ? "." : path
            if let known = state.withLock({ $0.runs > 0 ? $0.folders[key] : nil }) { return known }
            if create { try makeDirectories(key) }
            let opened = try Folder.open(key)
            return state.withLock { state in
                guard state.runs > 0 else { return opened }
                if let known = state.folders[key] { return known }
                state.folders[key] = opened
                return opened
            }
        }
    }

    /// What a file of mode `mode` is, for a message (`a FIFO`, `a character device`...).
    package static func fileKind(_ mode: mode_t) -> OutputFailure.FileKind {
        switch mode & S_IFMT {
        case S_IFREG: .regularFile
        case S_IFDIR: .folder
        case S_IFLNK: .symbolicLink
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        case S_IFIFO: .fifo
        case S_IFSOCK: .socket
        default: .unknown
        }
    }

    /// Fails when something other than a regular file stands at `target` in `folder`: cafconv
    /// replaces only regular files, never a device, FIFO, socket, symlink or folder, whoever runs it.
    package static func checkReplaceable(_ target: String, in folder: Folder, allowingSymlink: Bool = false)
        throws(ConversionError)
    {
        guard let info = folder.info(target), (info.st_mode & S_IFMT) != S_IFREG else { return }
        if allowingSymlink && (info.st_mode & S_IFMT) == S_IFLNK { return }
        throw ConversionError.output(.notReplaceable(path: joined(folder.path, target), kind: fileKind(info.st_mode)))
    }

    /// Identity, size and times of a file as it was seen, to notice another writer.
    package struct FileState: Equatable {
        package var device: UInt64
        package var inode: UInt64
        package var size: Int64
        package var modified: Int64
        package var changed: Int64

        package init(_ info: FileStatus) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = Int64(info.modificationTime.tv_sec) * 1_000_000_000 + Int64(info.modificationTime.tv_nsec)
            changed = Int64(info.changeTime.tv_sec) * 1_000_000_000 + Int64(info.changeTime.tv_nsec)
        }
    }

    /// Outputs (paths as the job names them) whose existing file is kept when the new one holds
    /// the same bytes: a single-file run for a build system converts every time it is asked,
    /// and keeping an unchanged output's time lets Make and Ninja (`restat`) skip what depends
    /// on it. Registered by the engine for the run's one job, removed after it.
    package static let keptWhenIdentical = Mutex<Set<String>>([])

    /// Whether the regular files `first` and `second` in `folder` hold the same bytes (read in
    /// blocks; neither followed if a symlink).
    static func sameContents(_ first: String, _ second: String, in folder: Folder) -> Bool {
        let a = withPath(first) { openat(folder.descriptor, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard a >= 0 else { return false }
        defer { close(a) }
        let b = withPath(second) { openat(folder.descriptor, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard b >= 0 else { return false }
        defer { close(b) }
        var infoA = FileStatus()
        var infoB = FileStatus()
        guard fstat(a, &infoA) == 0, fstat(b, &infoB) == 0, (infoA.st_mode & S_IFMT) == S_IFREG,
            (infoB.st_mode & S_IFMT) == S_IFREG, infoA.st_size == infoB.st_size
        else { return false }
        let size = 1 << 16
        var left = [UInt8](repeating: 0, count: size)
        var right = [UInt8](repeating: 0, count: size)
        var offset: off_t = 0
        while true {
            let got = left.withUnsafeMutableBytes { buffer in
                Syscall.retryOnInterrupt { pread(a, buffer.baseAddress, size, offset) }
            }
            let other = right.withUnsafeMutableBytes { buffer in
                Syscall.retryOnInterrupt { pread(b, buffer.baseAddress, size, offset) }
            }
            if got < 0 || got != other { return false }
            if got == 0 { return true }
            if left[0..<got] != right[0..<got] { return false }
            offset += off_t(got)
        }
    }

    /// The marker in every temporary file name cafconv makes.
    package static let temporaryMarker = ".cafconv-"

    /// A hidden name for a temporary file beside `target` that nobody can guess (64 random
    /// bits) and that is never longer than `NAME_MAX` (255 bytes): a long target name is cut,
    /// so every legal output name works.
    package static func temporaryName(for target: String) -> String {
        let suffix = temporaryMarker + String(UInt64.random(in: 0...UInt64.max), radix: 16) + ".tmp"
        let budget = 255 - 1 - suffix.utf8.count
        var kept = String.UnicodeScalarView()
        var used = 0
        for scalar in target.unicodeScalars {
            let size = scalar.value >= 0x10_FF80 ? 1 : String(scalar).utf8.count
            if used + size > budget { break }
            used += size
            kept.append(scalar)
        }
        return "." + String(kept) + suffix
    }

    /// Whether `name` is a temporary file name of cafconv (this or an earlier version).
    package static func isTemporaryName(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp") && name.contains(temporaryMarker)
    }

    /// A new hidden file in an output folder, created under an unguessable name (`O_TMPFILE`
    /// then `linkat`, or `O_EXCL | O_NOFOLLOW`: never through a symlink, never an existing
    /// file), and locked (`flock`) from before it has a name for as long as this value lives:
    /// the lock, not a process id, tells another run (perhaps in another container, where PIDs
    /// mean nothing) that it is still in use.
    /// ``commit()`` renames it to its target; otherwise it is deleted when freed.
    /// `anonymous` (where the system has `O_TMPFILE` and /proc): the file gets no name at all
    /// until ``commit()``, which links it straight to its target when nothing is there (one
    /// directory operation on the shared output folder instead of a link and a rename; see
    /// docs/internals.md, "How many jobs"); a crashed run leaves nothing behind.
    package final class TemporaryFile {
        package let folder: Folder
        /// Its hidden name in the folder; `nil` while it is anonymous.
        package private(set) var name: String?
        package let target: String
        private let lockDescriptor: Int32
        private let replacingSymlink: Bool
        private let identity: Identity
        private var committed = false

        /// The temporary file's path for readers that take a path, through the opened folder
        /// (this process's descriptor of it while it is anonymous).
        package var path: String {
            guard let name else { return descriptorPath(lockDescriptor) }
            return joined(folder.openedPath, name)
        }
        /// The temporary file's path as the user would spell it, for messages.
        package var displayPath: String { joined(folder.path, name ?? ".(unnamed)") }

        /// Creates the temporary file for `target` (a name) in `folder`.
        /// `replacingSymlink`: a symlink at the target is replaced (never followed), for cafconv's
        /// own state files, where a planted link must not stop the record.
        package init(
            in folder: Folder, for target: String, replacingSymlink: Bool = false, anonymous: Bool = false
        ) throws(ConversionError) {
            try checkReplaceable(target, in: folder, allowingSymlink: replacingSymlink)
            self.replacingSymlink = replacingSymlink
            var fd: Int32 = -1
            var name: String? = nil
            if anonymous && hasProcessFolder { fd = cafconv_create_anonymous(folder.descriptor, 0o666) }
            if fd < 0 {
                (name, fd) = try Self.createNamed(for: target, in: folder)
            }
            var info = FileStatus()
            _ = fstat(fd, &info)
            self.folder = folder
            self.name = name
            self.target = target
            self.lockDescriptor = fd
            self.identity = Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        }

        deinit {
            if !committed { discard() }
            close(lockDescriptor)
        }

        /// A new locked file under a new unguessable name for `target` in `folder`.
        private static func createNamed(for target: String, in folder: Folder) throws(ConversionError)
            -> (String, Int32)
        {
            for _ in 0..<8 {
                let name = temporaryName(for: target)
                let fd = withPath(name) { cafconv_create_locked(folder.descriptor, $0, 0o666) }
                if fd >= 0 { return (name, fd) }
                if errno != EEXIST { break }
            }
            throw ConversionError.output(.temporaryNotCreated(folder: folder.path, errno: errno))
        }

        /// Gives an anonymous file its hidden name (for a swap with an existing target).
        private func giveName() throws(ConversionError) {
            guard name == nil else { return }
            for _ in 0..<8 {
                let candidate = temporaryName(for: target)
                if withPath(candidate, { cafconv_link_at(lockDescriptor, folder.descriptor, $0) }) == 0 {
                    name = candidate
                    return
                }
                if errno != EEXIST { break }
            }
            throw ConversionError.output(.temporaryNotCreated(folder: folder.path, errno: errno))
        }

        /// A new descriptor of the file (sharing its lock), for a writer that closes it.
        package func descriptor() throws(ConversionError) -> Int32 {
            let fd = fcntl(lockDescriptor, F_DUPFD_CLOEXEC, 0)
            guard fd >= 0 else { throw ConversionError.output(.temporaryNotOpened(errno: errno)) }
            return fd
        }

        /// Whether `name` in the folder is still this file (not replaced behind our back).
        private var isStillOurs: Bool {
            // Nobody can reach a file without a name, so nobody can have replaced it.
            guard let name else { return true }
            guard let info = folder.info(name) else { return false }
            return (info.st_mode & S_IFMT) == S_IFREG
                && Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) == identity
        }

        /// Moves the file to its target in one step: readers see the old file or the new one.
        /// An existing target is swapped out (renameat2 with RENAME_EXCHANGE) and deleted,
        /// because ext4 writes the new file's data out at once when rename(2) replaces a file (a
        /// disk flush per output); elsewhere it is a plain rename. Only a regular file is ever
        /// replaced: anything else at the target (a folder, symlink, device, FIFO, socket) is an
        /// error, also when it appears between the check and the swap (it is swapped back). A root
        /// that no longer stands at the path the user named is an error too: the report must not
        /// name a place the file is not.
        package func commit() throws(ConversionError) {
            guard isStillOurs else {
                throw ConversionError.output(.temporaryReplaced(path: displayPath))
            }
            guard folder.isRootInPlace else {
                throw ConversionError.output(.rootMoved(path: folder.rootPath))
            }
            try checkReplaceable(target, in: folder, allowingSymlink: replacingSymlink)
            if keptWhenIdentical.withLock({ !$0.isEmpty && $0.contains(joined(folder.path, target)) }) {
                try giveName()
                if let name, sameContents(name, target, in: folder) {
                    discard()
                    return
                }
            }
            if name == nil, folder.info(target) == nil {
                // Nothing at the target: the unnamed file is linked straight to it. linkat never
                // replaces and never follows a symlink at the new name, so whatever was planted
                // meanwhile stays and the file takes the swap below.
                if withPath(target, { cafconv_link_at(lockDescriptor, folder.descriptor, $0) }) == 0 {
                    committed = true
                    return
                }
                guard errno == EEXIST else { throw ConversionError.output(.notMovedIntoPlace(errno: errno)) }
                try checkReplaceable(target, in: folder, allowingSymlink: replacingSymlink)
            }
            try giveName()
            guard let name else { throw ConversionError.output(.temporaryReplaced(path: displayPath)) }
            if folder.info(target) != nil {
                try replaceExisting(replacingSymlink: replacingSymlink)
            } else {
                // Nothing at the target: a rename that never replaces, so a device planted
                // meanwhile stays where it is.
                let moved = withPath(name) { from in
                    withPath(target) { to in cafconv_rename_noreplace_at(folder.descriptor, from, to) }
                }
                if moved != 0 && errno == EEXIST {
                    try checkReplaceable(target, in: folder, allowingSymlink: replacingSymlink)
                    try replaceExisting(replacingSymlink: replacingSymlink)
                } else if moved != 0 {
                    throw ConversionError.output(.notMovedIntoPlace(errno: errno))
                }
            }
            committed = true
        }

        /// Puts the file in place of the regular file at the target.
        private func replaceExisting(replacingSymlink: Bool) throws(ConversionError) {
            guard let name else { throw ConversionError.output(.temporaryReplaced(path: displayPath)) }
            let exchanged =
                withPath(name, { from in withPath(target) { to in cafconv_exchange_at(folder.descriptor, from, to) } }) == 0
            guard exchanged else {
                // No exchange on this system or file system: a plain rename (it never follows a symlink).
                let moved = withPath(name) { from in
                    withPath(target) { to in renameat(folder.descriptor, from, folder.descriptor, to) }
                }
                guard moved == 0 else {
                    throw ConversionError.output(.notMovedIntoPlace(errno: errno))
                }
                return
            }
            if let old = folder.info(name), (old.st_mode & S_IFMT) != S_IFREG,
                !(replacingSymlink && (old.st_mode & S_IFMT) == S_IFLNK)
            {
                // Someone put something else at the target after the check: put it back untouched.
                _ = withPath(name) { from in withPath(target) { to in cafconv_exchange_at(folder.descriptor, from, to) } }
                throw ConversionError.output(.notReplaceable(path: joined(folder.path, target), kind: fileKind(old.st_mode)))
            }
            _ = withPath(name) { unlinkat(folder.descriptor, $0, 0) }
        }

        /// Deletes the file (only if the name still holds it).
        package func discard() {
            if let name, isStillOurs { _ = withPath(name) { unlinkat(folder.descriptor, $0, 0) } }
            committed = true
        }
    }

    /// Deletes the temporary files in `folder` that no run is using any more: nobody holds their
    /// lock (a live run holds it, whatever its PID namespace), or, on a file system without
    /// locks, they are older than a day. Never follows a symlink; only regular files that match
    /// cafconv's temporary names are touched.
    package static func removeStaleTemporaries(in folder: Folder) {
        // Unsorted, and only the hidden names: this runs at every start, in folders of many outputs.
        guard let names = try? entries(of: folder.openedPath, sorted: false, hiddenOnly: true) else { return }
        for name in names where isTemporaryName(name) {
            let fd = withPath(name) {
                openat(folder.descriptor, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            }
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = FileStatus()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                if errno == EWOULDBLOCK || errno == EINTR { continue }
                let age = Int64(time(nil)) - Int64(info.modificationTime.tv_sec)
                guard age > 24 * 3600 else { continue }
            }
            // Still the same file under that name (it may have been renamed into place meanwhile).
            guard let current = folder.info(name), current.st_ino == info.st_ino, current.st_dev == info.st_dev else {
                continue
            }
            _ = withPath(name) { unlinkat(folder.descriptor, $0, 0) }
        }
    }

    /// What happened to an output `--prune` tried to delete.
    package enum PruneOutcome: Equatable {
        case removed
        /// Not there any more.
        case missing
        /// Its size or time differ from the record: someone changed it.
        case changed
        /// Not deleted, with the reason (a symlink on the way, not a regular file, an error).
        case refused(String)
    }

    /// Deletes `relative` (a checked manifest key) below `root` when it is a regular file with
    /// the recorded stamp, without following any symlink below `root`.
    package static func removeRecorded(root: String, relative: String, expected: Stamp) -> PruneOutcome {
        let components = relative.split(separator: "/")
        guard let leaf = components.last.map(String.init) else { return .refused("an empty path") }
        let folder: Folder
        do { folder = try Folder.open(root).descendant(components.dropLast(), create: false) } catch {
            return .refused(error.message)
        }
        guard let info = folder.info(leaf) else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK: return .refused("it is a symbolic link")
        default: return .refused("not a regular file")
        }
        guard Stamp(info) == expected else { return .changed }
        guard withPath(leaf, { unlinkat(folder.descriptor, $0, 0) }) == 0 else {
            return .refused("cannot delete it: \(errorText())")
        }
        return .removed
    }
}
