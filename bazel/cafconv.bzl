"""Bazel rules for cafconv: one audio source to one CAF file per action.

Every action runs `cafconv convert` in its single-file mode (one input, `-o FILE`): it reads only
the source and the rules file given, writes only the declared output, keeps no state, and its
bytes depend on nothing but the inputs, so Bazel's action cache, disk cache and remote cache
(and remote execution) can share them. The arguments go in a parameter file
(`--flagfile=PATH`, one argument per line), so the same action runs as a plain process, in the
sandbox, remotely, or in a persistent worker (`cafconv convert --persistent_worker`, Bazel's
JSON worker protocol: pass `--experimental_worker_allow_json_protocol` on Bazel 4.x, and
`--strategy=CafConvert=worker` to prefer it).

The tool is declared with the shared libraries cafconv opens with dlopen (libsndfile, libsoxr,
libxxhash, libmpg123, libavcodec/libavformat/libavutil, libopus, libebur128), copied into the
repository `@cafconv` by `cafconv_local`: their digests are part of each action's key, so
upgrading one of them reconverts, and each action runs with LD_LIBRARY_PATH naming their folder,
so the libraries cafconv loads are the declared ones (in a sandbox, in a worker, on a remote
executor). `transitive = True` also declares their own dependencies (what a remote executor
without the Debian packages needs); the C library itself is never declared.
"""

_WORKER = {
    "supports-workers": "1",
    "requires-worker-protocol": "json",
}

def _cafconv_convert_impl(ctx):
    out = ctx.outputs.out
    args = ctx.actions.args()
    args.add("-q")
    if ctx.attr.format:
        args.add("-d", ctx.attr.format)
    if ctx.attr.channels:
        args.add("-c", str(ctx.attr.channels))
    if ctx.file.rules:
        args.add("--rules", ctx.file.rules)
    args.add_all(ctx.attr.options)
    args.add(ctx.file.src)
    args.add("-o", out)
    args.use_param_file("--flagfile=%s", use_always = True)
    args.set_param_file_format("multiline")
    inputs = [ctx.file.src]
    if ctx.file.rules:
        inputs.append(ctx.file.rules)
    # The declared libraries are the ones dlopen finds first (paths relative to the execution root,
    # which is the working folder of plain, sandboxed, worker and remote actions alike).
    folders = sorted({library.dirname: True for library in ctx.files.tool_libraries}.keys())
    ctx.actions.run(
        executable = ctx.executable.tool,
        tools = ctx.files.tool_libraries,
        env = {"LD_LIBRARY_PATH": ":".join(folders)} if folders else {},
        # "convert" is the worker's start-up argument; the rest goes in the parameter file.
        arguments = ["convert", args],
        inputs = inputs,
        outputs = [out],
        mnemonic = "CafConvert",
        progress_message = "Converting %s to CAF" % ctx.file.src.short_path,
        execution_requirements = _WORKER if ctx.attr.worker else {},
    )
    return [DefaultInfo(files = depset([out]))]

cafconv_convert = rule(
    implementation = _cafconv_convert_impl,
    doc = "Converts one audio file (WAV, AIFF, FLAC, MP3, ...) into one CAF file with cafconv.",
    attrs = {
        "src": attr.label(allow_single_file = True, mandatory = True, doc = "The source audio file."),
        "out": attr.output(mandatory = True, doc = "The CAF file to write."),
        "format": attr.string(doc = "cafconv's -d: LEI16, BEF32, ima4, aac, LEI16@22050, ..."),
        "channels": attr.int(default = 0, doc = "cafconv's -c (0: the source's)."),
        "rules": attr.label(allow_single_file = [".toml"], doc = "A cafconv rules file (--rules): a declared input."),
        "options": attr.string_list(doc = "Other convert options (--dither tpdf, --strip-metadata, ...)."),
        "worker": attr.bool(default = True, doc = "Allow a persistent worker for this action."),
        "tool": attr.label(
            default = Label("@cafconv//:cafconv"),
            executable = True,
            allow_single_file = True,
            cfg = "exec",
            doc = "The cafconv binary.",
        ),
        "tool_libraries": attr.label_list(
            default = [Label("@cafconv//:libraries")],
            allow_files = True,
            cfg = "exec",
            doc = "The shared libraries cafconv opens: declared so that the action key covers them.",
        ),
    },
)

def cafconv_folder(name, srcs, strip_prefix = "", out_dir = None, **kwargs):
    """One cafconv_convert per source, and a filegroup `name` of all the CAF files.

    Args:
      name: the filegroup's name; outputs go under `out_dir` (default: `name`).
      srcs: source files (e.g. glob(["Sounds/**/*.wav"])).
      strip_prefix: leading path removed from each source to place its output.
      out_dir: the folder (in this package's output tree) the CAF files mirror the sources in.
      **kwargs: passed to every cafconv_convert (format, channels, rules, options, worker, ...).
    """
    folder = out_dir or name
    targets = []
    for src in srcs:
        relative = src[len(strip_prefix):] if strip_prefix and src.startswith(strip_prefix) else src
        relative = relative.lstrip("/")
        stem = relative.rsplit(".", 1)[0]
        target = "%s__%s" % (name, stem.replace("/", "__").replace(" ", "_"))
        cafconv_convert(name = target, src = src, out = "%s/%s.caf" % (folder, stem), **kwargs)
        targets.append(":" + target)
    native.filegroup(name = name, srcs = targets)

# glibc's own libraries: the executor's C library is used (an executor needs glibc at least as
# new as the machine cafconv was built on), never a copy.
_SYSTEM = ["linux-vdso", "ld-linux", "libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so", "libresolv.so"]

def _find(repository_ctx, library):
    for folder in repository_ctx.attr.library_dirs:
        path = repository_ctx.path(folder + "/" + library)
        if path.exists:
            return path
    return None

def _dependencies(repository_ctx, path):
    """The libraries `path` needs, as ldd resolves them (glibc's own left out)."""
    found = repository_ctx.execute(["ldd", str(path)])
    if found.return_code != 0:
        fail("cafconv_local: ldd %s failed: %s" % (path, found.stderr))
    paths = []
    for line in found.stdout.splitlines():
        parts = line.strip().split(" ")
        if len(parts) >= 3 and parts[1] == "=>" and parts[2].startswith("/"):
            if not [name for name in _SYSTEM if parts[0].startswith(name)]:
                paths.append((parts[0], parts[2]))
    return paths

def _cafconv_local_impl(repository_ctx):
    binary = repository_ctx.attr.binary or str(repository_ctx.which("cafconv") or "")
    if not binary:
        fail("cafconv_local: no cafconv on PATH; set binary = \"/path/to/cafconv\"")
    repository_ctx.symlink(binary, "cafconv")
    wanted = {}
    for library in repository_ctx.attr.libraries:
        path = _find(repository_ctx, library)
        if path:
            wanted[library] = str(path)
    if repository_ctx.attr.transitive:
        for path in [binary] + wanted.values():
            for name, dependency in _dependencies(repository_ctx, path):
                wanted.setdefault(name, dependency)
    names = []
    repository_ctx.file("lib/README", "The libraries cafconv opens, copied by cafconv_local.\n")
    for library, path in sorted(wanted.items()):
        # Copied, not linked: the repository holds the bytes the actions are keyed by and run with.
        copied = repository_ctx.execute(["cp", "-L", path, "lib/" + library])
        if copied.return_code != 0:
            fail("cafconv_local: cannot copy %s: %s" % (path, copied.stderr))
        names.append("lib/" + library)
    repository_ctx.file("BUILD.bazel", """
exports_files(["cafconv"], visibility = ["//visibility:public"])
filegroup(name = "libraries", srcs = {names}, visibility = ["//visibility:public"])
""".format(names = repr(names)))

cafconv_local = repository_rule(
    implementation = _cafconv_local_impl,
    doc = "An installed cafconv and the system libraries it opens, as the repository @cafconv.",
    local = True,
    attrs = {
        "binary": attr.string(doc = "Path of the cafconv binary (default: the one on PATH)."),
        "libraries": attr.string_list(default = [
            "libsndfile.so.1",
            "libsoxr.so.0",
            "libxxhash.so.0",
            "libmpg123.so.0",
            "libavcodec.so.59",
            "libavformat.so.59",
            "libavutil.so.57",
            "libopus.so.0",
            "libebur128.so.1",
        ], doc = "The libraries cafconv opens with dlopen (sonames)."),
        "transitive": attr.bool(default = False, doc = "Also declare the libraries these need (for remote executors without them)."),
        "library_dirs": attr.string_list(default = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/lib"]),
    },
)
