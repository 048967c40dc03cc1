# Shared by the bench scripts (sourced from the repository root).

# bench_require HINT TOOL...: exits with HINT when a tool is missing.
bench_require() {
    local hint=$1 tool
    shift
    for tool in "$@"; do
        command -v "$tool" >/dev/null || {
            echo "bench: $tool is missing ($hint)" >&2
            exit 1
        }
    done
}

# bench_binary: sets BIN to $CAFCONV_BIN, or builds the release binary `make release` builds.
bench_binary() {
    if [[ -z ${CAFCONV_BIN:-} ]]; then
        local flags
        flags=$(bash scripts/release-flags.sh)
        # shellcheck disable=SC2086
        swift build $flags --product cafconv >&2
        # shellcheck disable=SC2086
        CAFCONV_BIN="$(swift build $flags --show-bin-path)/cafconv"
    fi
    BIN=$CAFCONV_BIN
}
