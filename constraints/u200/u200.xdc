# ndknic on the AMD Alveo U200 (xcu200-fsgd2104-2-e): pins, I/O standards, clocks and the timing of
# everything that is not a crossing of rtl/lib's primitives (those: constraints/common/nic_cdc.tcl,
# read after this file). Pin locations from the Alveo U200/U250 user guide (UG1289) and its master
# XDC; the transceivers' serial pins are placed by their channel sites (the IP configurations).

# ---- configuration ----
set_property CFGBVS GND                                [current_design]
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE           [current_design]
set_property BITSTREAM.CONFIG.CONFIGFALLBACK ENABLE    [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN DISABLE [current_design]
set_property BITSTREAM.CONFIG.CONFIGRATE 63.8          [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES       [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4           [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES        [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN PULLUP         [current_design]

# ---- 300 MHz system clock of DDR4 C0 (core clock MMCM) ----
set_property -dict {PACKAGE_PIN AY37 IOSTANDARD LVDS} [get_ports clk_300mhz_0_p]
set_property -dict {PACKAGE_PIN AY38 IOSTANDARD LVDS} [get_ports clk_300mhz_0_n]
create_clock -period 3.333 -name clk_300mhz_0 [get_ports clk_300mhz_0_p]

# ---- user LEDs ----
set_property -dict {PACKAGE_PIN BC21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN BB21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN BA20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[2]}]
set_false_path -to [get_ports {led[*]}]
set_output_delay 0 [get_ports {led[*]}]

# ---- PCIe edge connector: lanes 0-7 (GTY quads 227 and 226), refclk on MGTREFCLK0 of quad 226 ----
set_property PACKAGE_PIN AF2 [get_ports {pcie_rx_p[0]}]
set_property PACKAGE_PIN AF7 [get_ports {pcie_tx_p[0]}]
set_property PACKAGE_PIN AG4 [get_ports {pcie_rx_p[1]}]
set_property PACKAGE_PIN AG9 [get_ports {pcie_tx_p[1]}]
set_property PACKAGE_PIN AH2 [get_ports {pcie_rx_p[2]}]
set_property PACKAGE_PIN AH7 [get_ports {pcie_tx_p[2]}]
set_property PACKAGE_PIN AJ4 [get_ports {pcie_rx_p[3]}]
set_property PACKAGE_PIN AJ9 [get_ports {pcie_tx_p[3]}]
set_property PACKAGE_PIN AK2 [get_ports {pcie_rx_p[4]}]
set_property PACKAGE_PIN AK7 [get_ports {pcie_tx_p[4]}]
set_property PACKAGE_PIN AL4 [get_ports {pcie_rx_p[5]}]
set_property PACKAGE_PIN AL9 [get_ports {pcie_tx_p[5]}]
set_property PACKAGE_PIN AM2 [get_ports {pcie_rx_p[6]}]
set_property PACKAGE_PIN AM7 [get_ports {pcie_tx_p[6]}]
set_property PACKAGE_PIN AN4 [get_ports {pcie_rx_p[7]}]
set_property PACKAGE_PIN AN9 [get_ports {pcie_tx_p[7]}]
set_property PACKAGE_PIN AM11 [get_ports pcie_refclk_p]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
set_property -dict {PACKAGE_PIN BD21 IOSTANDARD LVCMOS12 PULLUP true} [get_ports pcie_reset_n]
set_false_path -from [get_ports pcie_reset_n]
set_input_delay 0 [get_ports pcie_reset_n]

# ---- QSFP28 cage 0: lane 1 (GTY quad 231, X1Y48), 156.25 MHz refclk from the SI5335 on
# MGTREFCLK1 of quad 231 (FS = 0b01 from the top) ----
set_property PACKAGE_PIN N9  [get_ports qsfp0_tx1_p]
set_property PACKAGE_PIN N4  [get_ports qsfp0_rx1_p]
set_property PACKAGE_PIN K11 [get_ports qsfp0_mgt_refclk_1_p]
create_clock -period 6.400 -name qsfp0_mgt_refclk_1 [get_ports qsfp0_mgt_refclk_1_p]
set_property -dict {PACKAGE_PIN BE16 IOSTANDARD LVCMOS12} [get_ports qsfp0_modsell]
set_property -dict {PACKAGE_PIN BE17 IOSTANDARD LVCMOS12} [get_ports qsfp0_resetl]
set_property -dict {PACKAGE_PIN BE20 IOSTANDARD LVCMOS12} [get_ports qsfp0_modprsl]
set_property -dict {PACKAGE_PIN BE21 IOSTANDARD LVCMOS12} [get_ports qsfp0_intl]
set_property -dict {PACKAGE_PIN BD18 IOSTANDARD LVCMOS12} [get_ports qsfp0_lpmode]
set_property -dict {PACKAGE_PIN AT22 IOSTANDARD LVCMOS12} [get_ports qsfp0_refclk_reset]
set_property -dict {PACKAGE_PIN AT20 IOSTANDARD LVCMOS12} [get_ports {qsfp0_fs[0]}]
set_property -dict {PACKAGE_PIN AU22 IOSTANDARD LVCMOS12} [get_ports {qsfp0_fs[1]}]
set_false_path -to [get_ports {qsfp0_modsell qsfp0_resetl qsfp0_lpmode qsfp0_refclk_reset qsfp0_fs[*]}]
set_output_delay 0 [get_ports {qsfp0_modsell qsfp0_resetl qsfp0_lpmode qsfp0_refclk_reset qsfp0_fs[*]}]
set_false_path -from [get_ports {qsfp0_modprsl qsfp0_intl}]
set_input_delay 0 [get_ports {qsfp0_modprsl qsfp0_intl}]

# ---- clocks between domains ----
# The core clock (MMCM), the PCIe user clock, the Ethernet TX and RX user clocks and the 125 MHz
# helper clock are unrelated. No set_clock_groups: that would also cut the crossings that
# constraints/common/nic_cdc.tcl bounds with set_max_delay, so every path between these clocks
# that is not one of those crossings is timed as if synchronous and fails timing: an
# unconstrained crossing cannot hide.
# The board reset (an OR of PCIe user_reset, MMCM lock and the transceiver's reset-done) is an
# asynchronous input of every nic_cdc_reset; nic_cdc.tcl cuts those paths.
