import Foundation
import TestSupport
import Testing

/// Issue 34: `bazel/cafconv.bzl` and `Examples/BazelSounds` built by a real Bazel (Debian's
/// `bazel-bootstrap`, 4.2; `scripts/install-deps.sh` installs it). Every test builds the example's
/// targets in output bases of its own under one temporary folder and shuts its Bazel servers
/// down at the end; outputs are compared with what `cafconv convert` writes for the same
/// arguments run by hand.
@Suite(
    "Bazel end to end (Examples/BazelSounds)", .serialized,
    .enabled(if: BazelWorkspace.bazel != nil, "bazel is not installed (apt-get install bazel-bootstrap)"),
    .enabled(if: which("python3") != nil, "python3 is not installed (it writes the example's sources)"))
struct BazelEndToEndTests {
    static let targets = ["//:theme", "//:sfx"]

    @Test("the example builds through the persistent worker, with the bytes of cafconv run by hand")
    func workerBuild() throws {
        let bazel = try BazelWorkspace()
        defer { bazel.shutdown() }
        let log = bazel.root.file("worker.json")
        let built = try bazel.build(
            "worker", ["--strategy=CafConvert=worker", "--worker_verbose", "--execution_log_json_file=\(log)"])
        #expect(built.status == 0, "\(built.stderr)")
        #expect(built.stderr.contains("5 worker"), "\(built.stderr)")
        #expect(BazelWorkspace.runners(log) == Array(repeating: "worker", count: 5))
        #expect(built.stderr.contains("Created new non-sandboxed CafConvert worker"), "\(built.stderr)")
        let logs = (try? FileManager.default.contentsOfDirectory(atPath: bazel.outputBase("worker") + "/bazel-workers")) ?? []
        let workers = logs.filter { $0.hasSuffix("-CafConvert.log") }
        // Five actions served by fewer processes than actions: the worker is long-lived.
        #expect(!workers.isEmpty && workers.count < 5, "\(logs)")
        try bazel.expectReferenceOutputs(in: "worker")
    }

    @Test("after bazel clean, a build with --disk_cache gets every action from the cache")
    func diskCache() throws {
        let bazel = try BazelWorkspace()
        defer { bazel.shutdown() }
        let cache = "--disk_cache=\(bazel.root.file("disk-cache"))"
        let first = try bazel.build("disk", [cache])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try bazel.command("disk", ["clean"]).status == 0)
        let log = bazel.root.file("disk.json")
        let again = try bazel.build("disk", [cache, "--execution_log_json_file=\(log)"])
        #expect(again.status == 0, "\(again.stderr)")
        // Bazel 4.2 counts disk cache hits as remote cache hits.
        #expect(again.stderr.contains("5 remote cache hit"), "\(again.stderr)")
        #expect(BazelWorkspace.runners(log) == Array(repeating: "remote cache hit", count: 5))
        try bazel.expectReferenceOutputs(in: "disk")
    }

    @Test(
        "a second output base gets every action from an HTTP remote cache (nginx with WebDAV on 127.0.0.1)",
        .enabled(if: WebDAVServer.nginx != nil, "nginx is not installed (apt-get install nginx)"))
    func remoteCache() throws {
        let bazel = try BazelWorkspace()
        defer { bazel.shutdown() }
        let server = try WebDAVServer(in: bazel.root.file("nginx"))
        defer { server.stop() }
        let cache = "--remote_cache=http://127.0.0.1:\(server.port)"
        let upload = try bazel.build("upload", [cache])
        #expect(upload.status == 0, "\(upload.stderr)")
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: server.store + "/ac")) ?? []
        #expect(stored.count >= 5, "action results stored by nginx: \(stored)")
        let log = bazel.root.file("remote.json")
        let download = try bazel.build("download", [cache, "--execution_log_json_file=\(log)"])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stderr.contains("5 remote cache hit"), "\(download.stderr)")
        #expect(BazelWorkspace.runners(log) == Array(repeating: "remote cache hit", count: 5))
        try bazel.expectReferenceOutputs(in: "upload")
        try bazel.expectReferenceOutputs(in: "download")
    }

    /// The sandbox plays a remote executor as far as it can: no network, and the system's copies
    /// of the libraries cafconv opens hidden, so only the declared ones can be loaded.
    @Test("a sandboxed build with no network and the system's libraries hidden writes the same bytes")
    func sandboxedBuild() throws {
        let bazel = try BazelWorkspace()
        defer { bazel.shutdown() }
        let hidden = BazelWorkspace.libraries.compactMap(BazelWorkspace.systemCopy).map { "--sandbox_block_path=\($0)" }
        #expect(hidden.count == BazelWorkspace.libraries.count, "\(hidden)")
        let built = try bazel.build(
            "sandbox",
            ["--spawn_strategy=sandboxed", "--strategy=CafConvert=sandboxed", "--sandbox_default_allow_network=false"] + hidden)
        #expect(built.status == 0, "\(built.stderr)")
        // linux-sandbox runs as root in a container here; processwrapper-sandbox where it cannot.
        #expect(built.stderr.contains("5 linux-sandbox") || built.stderr.contains("5 processwrapper-sandbox"), "\(built.stderr)")
        try bazel.expectReferenceOutputs(in: "sandbox")
    }

    @Test("transitive = True also declares what the libraries need (ldd): hidden from a sandboxed build, the same bytes")
    func transitiveLibraries() throws {
        let bazel = try BazelWorkspace(transitive: true)
        defer { bazel.shutdown() }
        // What libsndfile needs, as ldd resolves it on this machine, glibc's own left out.
        let sndfile = try #require(BazelWorkspace.systemCopy("libsndfile.so.1"))
        let ldd = try run("/usr/bin/ldd", [sndfile])
        let needed = ldd.text.split(separator: "\n").compactMap { line -> String? in
            let parts = line.split { $0 == " " || $0 == "\t" }
            guard parts.count >= 3, parts[1] == "=>", parts[2].hasPrefix("/") else { return nil }
            let name = String(parts[0])
            let system = ["libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so", "ld-linux"]
            return system.contains { name.hasPrefix($0) } ? nil : name
        }
        #expect(needed.contains { $0.hasPrefix("libogg") }, "\(ldd.text)")
        let query = try bazel.command("transitive", ["aquery", "mnemonic(CafConvert, deps(//:sfx))"])
        #expect(query.status == 0, "\(query.stderr)")
        let inputs = query.text.split(separator: "\n").filter { $0.contains("Inputs: [") }
        #expect(inputs.count == 4, "\(query.text)")
        for line in inputs {
            let missing = (BazelWorkspace.libraries + needed).filter { !line.contains("external/cafconv/lib/\($0) ") && !line.contains("external/cafconv/lib/\($0),") && !line.contains("external/cafconv/lib/\($0)]") }
            #expect(missing.isEmpty, "not declared: \(missing)")
            #expect(!line.contains("external/cafconv/lib/libc.so"), "glibc itself is declared")
        }
        let hidden = (BazelWorkspace.libraries + needed).compactMap(BazelWorkspace.systemCopy).map { "--sandbox_block_path=\($0)" }
        let built = try bazel.build(
            "transitive",
            ["--spawn_strategy=sandboxed", "--strategy=CafConvert=sandboxed", "--sandbox_default_allow_network=false"] + hidden)
        #expect(built.status == 0, "\(built.stderr)")
        try bazel.expectReferenceOutputs(in: "transitive")
    }

    @Test("the binary and the libraries it opens are the actions' declared tools: changing one reruns them")
    func toolDeclaration() throws {
        let bazel = try BazelWorkspace(libraryFolder: true)
        defer { bazel.shutdown() }
        let query = try bazel.command("tools", ["aquery", "mnemonic(CafConvert, deps(//:sfx))"])
        #expect(query.status == 0, "\(query.stderr)")
        let inputs = query.text.split(separator: "\n").filter { $0.contains("Inputs: [") }
        #expect(inputs.count == 4, "\(query.text)")
        for line in inputs {
            #expect(line.contains("external/cafconv/cafconv") && line.contains("Sounds/cafconv.toml"), "\(line)")
            for library in BazelWorkspace.libraries { #expect(line.contains("external/cafconv/lib/\(library)"), "\(line)") }
        }
        #expect(query.text.contains("LD_LIBRARY_PATH=external/cafconv/lib"), "\(query.text)")
        #expect(try bazel.build("tools", []).stderr.contains("5 worker"))
        // Fetched again with the same bytes: nothing to do.
        #expect(try bazel.command("tools", ["sync", "--only=cafconv"]).status == 0)
        let same = try bazel.build("tools", [])
        #expect(same.status == 0 && !same.stderr.contains("worker"), "\(same.stderr)")
        // One more byte at the end of libxxhash (still a loadable library): every action reruns.
        let library = bazel.root.file("libs/libxxhash.so.0")
        guard let handle = FileHandle(forWritingAtPath: library) else {
            Issue.record("no \(library)")
            return
        }
        handle.seekToEndOfFile()
        handle.write(Data([0]))
        handle.closeFile()
        #expect(try bazel.command("tools", ["sync", "--only=cafconv"]).status == 0)
        let changed = try bazel.build("tools", [])
        #expect(changed.status == 0 && changed.stderr.contains("5 worker"), "\(changed.stderr)")
    }
}

/// A copy of `Examples/BazelSounds` in a temporary folder, its sources written, using this
/// build's `cafconv` and this repository's rules; Bazel's state under the same folder.
final class BazelWorkspace {
    static let bazel = which("bazel")
    /// The longest one `bazel` command may take (a cold server start and a build on a loaded machine).
    static let timeout = 600.0
    /// What `cafconv_local` declares by default (bazel/cafconv.bzl).
    static let libraries = [
        "libavcodec.so.59", "libavformat.so.59", "libavutil.so.57", "libebur128.so.1", "libmpg123.so.0", "libopus.so.0",
        "libsndfile.so.1", "libsoxr.so.0", "libxxhash.so.0",
    ]
    static let outputs = ["Build/music/theme.caf", "Build/sfx/hit.caf", "Build/sfx/boom.caf", "Build/sfx/ui/click.caf", "Build/sfx/ui/hover.caf"]

    let root = TempDirectory("cafconv-bazel")
    var workspace: String { root.file("ws") }
    private var bases: Set<String> = []

    /// `libraryFolder`: the libraries are looked for first in `libs/` of the temporary folder,
    /// which holds a copy of libxxhash.
    /// `transitive`: `cafconv_local(transitive = True)`.
    init(libraryFolder: Bool = false, transitive: Bool = false) throws {
        let example = RepositoryPaths.root + "/Examples/BazelSounds"
        for name in ["BUILD.bazel", "WORKSPACE", ".bazelrc", "make-sounds.py"] {
            root.write("ws/" + name, readFile(example + "/" + name) ?? [])
        }
        var folders = ""
        if libraryFolder, let xxhash = Self.systemCopy("libxxhash.so.0") {
            root.write("libs/libxxhash.so.0", readFile(xxhash) ?? [])
            folders = ", library_dirs = [\"\(root.file("libs"))\", \"/usr/lib/x86_64-linux-gnu\", \"/usr/lib/aarch64-linux-gnu\"]"
        }
        if transitive { folders += ", transitive = True" }
        let text = String(decoding: readFile(root.file("ws/WORKSPACE")) ?? [], as: UTF8.self)
        let local = "cafconv_local(name = \"cafconv\")"
        #expect(text.contains("\"../../bazel\"") && text.contains(local), "the example's WORKSPACE changed: \(text)")
        let edited = text.replacingOccurrences(of: "\"../../bazel\"", with: "\"\(RepositoryPaths.root)/bazel\"")
            .replacingOccurrences(of: local, with: "cafconv_local(name = \"cafconv\", binary = \"\(RepositoryPaths.executable)\"\(folders))")
        root.write("ws/WORKSPACE", Array(edited.utf8))
        let made = try BoundedProcess.run(
            "/usr/bin/env", ["python3", "make-sounds.py"], in: root.path, currentDirectory: workspace, timeout: 120)
        #expect(made.status == 0, "\(made.stderr)")
    }

    func outputBase(_ base: String) -> String { root.file("bases/" + base) }

    /// `bazel COMMAND...` in the output base `base` (the home rc file ignored; Debian's system rc names its install base).
    /// What one `bazel` command printed.
    struct BazelRun {
        var status: Int32
        var text: String
        var stderr: String
    }

    func command(_ base: String, _ arguments: [String]) throws -> BazelRun {
        bases.insert(base)
        let startup = [
            "--nohome_rc", "--output_user_root=\(root.file("user-root"))", "--output_base=\(outputBase(base))",
            "--host_jvm_args=-Xmx1g",
        ]
        // Into files, not pipes: the Bazel server the client leaves running keeps every
        // descriptor the client inherited, so a pipe would never reach its end. Bounded: a Bazel
        // that does not answer fails the test after `timeout` seconds instead of hanging it.
        let ran = try BoundedProcess.run(
            Self.bazel ?? "bazel", startup + arguments, in: root.path, currentDirectory: workspace,
            environment: ProcessInfo.processInfo.environment.merging(["HOME": root.path]) { $1 }, timeout: Self.timeout)
        return BazelRun(status: ran.status, text: String(decoding: ran.stdout, as: UTF8.self), stderr: ran.stderr)
    }

    /// Builds the example's targets.
    func build(_ base: String, _ flags: [String]) throws -> BazelRun {
        try command(base, ["build", "--experimental_worker_allow_json_protocol"] + flags + BazelEndToEndTests.targets)
    }

    /// Stops every Bazel server this workspace started (and the workers they own).
    func shutdown() {
        for base in bases {
            _ = try? command(base, ["shutdown"])
            // A server that did not stop (its pid file names it) is killed.
            if let text = try? String(contentsOfFile: outputBase(base) + "/server/server.pid.txt", encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), kill(pid, 0) == 0
            {
                kill(pid, SIGKILL)
            }
        }
        // Bazel leaves read-only folders behind; open them so that the folder can be removed.
        _ = try? BoundedProcess.run("/bin/chmod", ["-R", "u+w", root.path], in: root.path, timeout: 120)
    }

    /// The output files of `base` equal what `cafconv convert` writes for the rules' arguments.
    func expectReferenceOutputs(in base: String) throws {
        let execroot = outputBase(base) + "/execroot/bazel_sounds/bazel-out"
        let configurations = (try? FileManager.default.contentsOfDirectory(atPath: execroot)) ?? []
        guard let bin = configurations.first(where: { $0.hasSuffix("-fastbuild") }).map({ execroot + "/" + $0 + "/bin" }) else {
            Issue.record("no bazel-out/*-fastbuild in \(execroot): \(configurations)")
            return
        }
        let reference = try references()
        for output in Self.outputs {
            let built = readFile(bin + "/" + output)
            #expect(built != nil && built == reference[output], "\(base): \(output)")
        }
    }

    /// The outputs written by cafconv run by hand in the workspace, as the BUILD file asks.
    func references() throws -> [String: [UInt8]] {
        let folder = root.file("reference")
        var outputs: [String: [UInt8]] = [:]
        for output in Self.outputs {
            let source = output.replacingOccurrences(of: "Build/", with: "Sounds/").replacingOccurrences(of: ".caf", with: ".wav")
            let options = output.hasSuffix("theme.caf") ? ["-d", "LEI16@22050", "-c", "1"] : ["--rules", "Sounds/cafconv.toml"]
            let made = try BoundedProcess.run(
                RepositoryPaths.executable, ["convert", "-q"] + options + [source, "-o", folder + "/" + output],
                in: root.path, currentDirectory: workspace, timeout: 120)
            #expect(made.status == 0, "\(made.stderr)")
            outputs[output] = readFile(folder + "/" + output)
        }
        // The rules file governs by path below its folder: sfx/h*.wav are 22050 Hz mono, smaller.
        #expect((outputs["Build/sfx/hit.caf"]?.count ?? 0) * 3 < (outputs["Build/sfx/boom.caf"]?.count ?? 0))
        return outputs
    }

    /// The spawn runners an execution log (Bazel 4.2's JSON: objects one after another) names.
    static func runners(_ log: String) -> [String] {
        let text = String(decoding: readFile(log) ?? [], as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("\"runner\": \"") else { return nil }
            return String(trimmed.dropFirst("\"runner\": \"".count).prefix { $0 != "\"" })
        }
    }

    /// The file the system's `library` name leads to.
    static func systemCopy(_ library: String) -> String? {
        for folder in ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"] {
            let path = URL(fileURLWithPath: folder + "/" + library)
            if FileManager.default.fileExists(atPath: path.path) { return path.resolvingSymlinksInPath().path }
        }
        return nil
    }
}

/// nginx serving a WebDAV folder (PUT and GET: Bazel's HTTP cache protocol) on 127.0.0.1.
final class WebDAVServer {
    static let nginx = which("nginx") ?? (FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") ? "/usr/sbin/nginx" : nil)
    let folder: String
    let port: Int
    var store: String { folder + "/store" }
    private var process: BoundedProcess?

    init(in folder: String) throws {
        self.folder = folder
        port = Self.freePort()
        for sub in ["store", "temp", "logs"] { try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true) }
        let config = """
            \(getuid() == 0 ? "user root;" : "")
            worker_processes 1;
            daemon off;
            pid \(folder)/nginx.pid;
            error_log \(folder)/logs/error.log;
            events { worker_connections 64; }
            http {
                access_log \(folder)/logs/access.log;
                client_body_temp_path \(folder)/temp/body;
                proxy_temp_path \(folder)/temp/proxy;
                fastcgi_temp_path \(folder)/temp/fastcgi;
                uwsgi_temp_path \(folder)/temp/uwsgi;
                scgi_temp_path \(folder)/temp/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    root \(folder)/store;
                    client_max_body_size 0;
                    location / {
                        dav_methods PUT;
                        create_full_put_path on;
                    }
                }
            }

            """
        try config.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        let process = try BoundedProcess(
            Self.nginx ?? "nginx", ["-p", folder, "-c", folder + "/nginx.conf", "-e", folder + "/logs/error.log"])
        self.process = process
        // Ready when it accepts connections (5 s at most).
        for _ in 0..<100 where !Self.connects(port) { usleep(50_000) }
        #expect(Self.connects(port), "nginx does not answer on 127.0.0.1:\(port); see \(folder)/logs/error.log")
    }

    /// Stops nginx (SIGTERM, SIGKILL after 10 s) and reaps it.
    func stop() {
        process?.stop()
        process = nil
    }

    /// A port the kernel reports free on 127.0.0.1 (bound, read back, closed).
    static func freePort() -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts a TCP connection on 127.0.0.1:port.
    static func connects(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, length) }
        } == 0
    }
}
