#!/bin/sh
# Seeds each fuzz target's corpus with every .mesh file of the project, of the public
# conformance sample beside it, and of fuzz/seeds/. For `check` and `resolve` it also adds
# two- and three-file workspaces (files joined by the 0xFF separator byte), so meshes
# meet the modules they assign. Corpora are not committed; run this before fuzzing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
shared=${MESH_SHARED:-$(dirname "$root")/shared}
targets=${*:-parse fmt check resolve lsp}

list=$(mktemp)
trap 'rm -f "$list"' EXIT
{
    find "$root/catalogue" "$root/tests/cases" "$root/stdlib-contracts" "$here/seeds" -name '*.mesh' 2>/dev/null
    if [ -d "$shared/conformance" ]; then find "$shared/conformance" -name '*.mesh'; fi
} | sort > "$list"

for t in $targets; do
    dir="$here/corpus/$t"
    mkdir -p "$dir"
    n=0
    while IFS= read -r f; do
        n=$((n + 1))
        cp "$f" "$dir/seed-$n.mesh"
    done < "$list"
    case $t in
    check | resolve | lsp)
        # Each catalogue mesh with the catalogue's contracts and one module beside it.
        for f in "$root"/catalogue/*.mesh; do
            n=$((n + 1))
            {
                cat "$f"
                printf '\377'
                cat "$root/catalogue/contracts.mesh"
                printf '\377'
                cat "$root/catalogue/lab.mesh"
            } > "$dir/seed-$n.mesh"
        done
        ;;
    esac
    echo "$t: $(ls "$dir" | wc -l) inputs in $dir"
done
