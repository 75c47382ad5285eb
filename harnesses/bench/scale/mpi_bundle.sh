#!/usr/bin/env bash
# Copies this machine's Open MPI (Debian's openmpi-bin and libopenmpi3, with
# the libraries check-kernel loads) into DIR, for a machine that has none:
# there, `DIR/run.sh -np 16 check-kernel --distributed ...` runs it
# (OPAL_PREFIX relocates Open MPI; PMIx is pointed at its plugins). Used for
# the distributed rows of docs/benchmarks.md on the GPU host.
# usage: harnesses/bench/scale/mpi_bundle.sh DIR [CHECK_KERNEL]
set -euo pipefail
dir=${1:?usage: mpi_bundle.sh DIR [CHECK_KERNEL]}
ck=${2:-build/check-kernel}
arch=x86_64-linux-gnu
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib" "$dir/lib/$arch/openmpi/lib" "$dir/share" "$dir/pmix/lib"
cp -L /usr/bin/orterun "$dir/bin/mpirun"
cp -L /usr/bin/orted "$dir/bin/orted"
cp -rL /usr/lib/$arch/openmpi/lib/openmpi3 "$dir/lib/$arch/openmpi/lib/"
cp -rL /usr/share/openmpi "$dir/share/"
cp -rL /usr/lib/$arch/pmix2/lib/pmix "$dir/pmix/lib/"
cp -rL /usr/share/pmix "$dir/pmix/share" 2>/dev/null || true
# One host only: shared memory between the ranks (btl vader), none of the
# network transports and their libraries.
find "$dir/lib/$arch/openmpi" "$dir/pmix" -name '*.so' | grep -E 'ucx|ofi|psm|openib|verbs|usnic|portals|cuda|rdma|oshmem|spml|sshmem|fcoll|fbtl|io_|sharedfp' | xargs -r rm -f
# The libraries of check-kernel, mpirun and the components, less the C
# runtime every machine has.
{
  ldd "$ck" "$dir/bin/mpirun" "$dir/bin/orted"
  find "$dir/lib/$arch/openmpi" "$dir/pmix" -name '*.so' -exec ldd {} \; 2>/dev/null
} | awk '/=> \// {print $3}' | sort -u | grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libgcc_s|libstdc\+\+)\.so' |
  while read -r lib; do cp -L "$lib" "$dir/lib/"; done
strip -o "$dir/bin/check-kernel" "$ck"
cat > "$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# mpirun of the bundle, its libraries first; the ranks run as root where the
# machine's user is root.
here=$(cd "$(dirname "$0")" && pwd)
export OPAL_PREFIX=$here PMIX_PREFIX=$here/pmix PMIX_MCA_mca_base_component_path=$here/pmix/lib/pmix LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$here/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
exec "$here/bin/mpirun" "$@"
RUN
chmod +x "$dir/run.sh"
du -sh "$dir"
