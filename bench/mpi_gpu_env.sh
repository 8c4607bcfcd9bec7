# Source this on the GPU machine (after .gpu/opencl-env.sh) to get Open MPI, xxHash, matio and
# HDF5 there: that machine runs Ubuntu and can reach no package archive, so Debian 12's .deb files
# travel in the carried folder .mpi (fetched here with `apt-get download`, see bench/MPI_GPU.md)
# and unpack into /tmp/mx, never into /. Open MPI is relocated by OPAL_PREFIX; pkg-config files
# are rewritten to the new prefix.
_debs=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.mpi
P=/tmp/mx
if [ ! -e $P/usr/bin/orterun ]; then
  mkdir -p $P
  for f in "$_debs"/*.deb; do dpkg -x "$f" $P; done
  find $P -name '*.pc' -type f -exec sed -i "s#/usr#$P/usr#g" {} +
  ln -sf hdf5-serial.pc $P/usr/lib/x86_64-linux-gnu/pkgconfig/hdf5.pc
  ln -sf opal_wrapper $P/usr/bin/mpicc
  ln -sf orterun $P/usr/bin/mpirun
fi
# libcurl (HDF5 needs it) only where the system has none: Debian's would shadow Ubuntu's
if ldconfig -p | grep -q 'libcurl\.so\.4 '; then rm -f $P/usr/lib/x86_64-linux-gnu/libcurl.so.4*; fi
export OPAL_PREFIX=$P/usr
export PATH=$P/usr/bin:$PATH
export LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu:$P/usr/lib/x86_64-linux-gnu/hdf5/serial${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
# Ranks as root on one host, inside a sandbox (gVisor): shared memory without cross-process
# reads (process_vm_readv), TCP on loopback, no binding, no fabric components.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_pml=ob1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_mca_base_component_show_load_errors=0 OMPI_MCA_rmaps_base_oversubscribe=1
export PMIX_MCA_pcompress_base_silence_warning=1
MPI_CMAKE="-DMPI_C_COMPILER=$P/usr/bin/mpicc"
unset _debs
