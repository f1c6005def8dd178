# The Alveo U200 image's configuration: the one place for the part, the IP settings and the core's
# parameters. fw/common/vivado.tcl sources it; `make lint` (the Yosys check of the board top)
# sources it too (fw/common/yosys_board.tcl: the generics, the core parameters).

set cfg_board      u200
set cfg_part       xcu200-fsgd2104-2-e
set cfg_top        ndk_u200_top
set cfg_flash      {-interface SPIx4 -size 128}   ;# one MT25QU01G (write_cfgmem)

# PCIe: Gen3 x8 on the x16 edge connector (the 256-bit interface rtl/pcie is written for);
# the block next to GTY quads 226-227, where lanes 0-7 of the edge connector land.
set cfg_pcie_lanes 8
set cfg_pcie_block X1Y2
set cfg_vendor_id  1D1D          ;# formats/nic.toml [device]
set cfg_device_id  0001
set cfg_bar0_mib   4             ;# formats/nic.toml: BAR0 is 4 MiB
set cfg_msix_vectors 64
set cfg_msix_table_offset 00300000
set cfg_msix_pba_offset   00308000

# Ethernet: QSFP28 cage 0, lane 1 (GTY quad 231, channel X1Y48), 156.25 MHz reference from the
# SI5335 on MGTREFCLK1 of quad 231 (the top sets its FS pins to 0b01); the GTY reset helper runs
# on 125 MHz from the core clock's MMCM.
set cfg_eth_gt_channel X1Y48
set cfg_eth_refclk     clk1         ;# MGTREFCLK1 of the channel's quad (the transceiver wizard's name)
set cfg_freerun_mhz    125

# The core: DataWidth 256; queue counts and tables sized for the XCVU9P (1.18 M LUTs, 75.9 Mb of
# block RAM; the U200's XCU200 is the same die), far beyond what the core needs: 64 QPs, 64 CQs, 1024 MRs / MWs, 4096 translation
# entries (16 MiB registered at once), 64 MSI-X vectors.
# Core clock: 40 MHz. Chosen from the only measurement there is (issue 19: the 4-QP core places
# and routes at 25.8 MHz on ECP5 speed 8, 88 logic levels on its worst path); UltraScale+ -2
# fabric with 6-input LUTs is roughly 1.5-2x that, and at DataWidth 256 the core must run at
# >= 39.1 MHz to carry 10 Gb/s (docs/ethernet.md). Vivado's timing report decides: if the routed
# design misses 40 MHz, lower cfg_core_mhz (and the MMCM divider) until it meets.
set cfg_core_mhz   40
set cfg_mmcm       {MmcmMult=10 MmcmDiv=3 MmcmOutDiv=25 MmcmAuxDiv=8}   ;# 300 x 10 / 3: VCO 1000 MHz: 40 and 125 MHz

set cfg_generics [concat \
    [list DataWidth=256 NumQps=64 NumCqs=64 NumMrs=1024 MttEntries=4096 MsixVectors=$cfg_msix_vectors \
          CoreClockMhz=$cfg_core_mhz] \
    $cfg_mmcm]
