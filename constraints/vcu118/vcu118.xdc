# ndknic on the AMD VCU118 (xcvu9p-flga2104-2L-e): pins, I/O standards, clocks and the timing of
# everything that is not a crossing of rtl/lib's primitives (those: constraints/common/nic_cdc.tcl,
# read after this file). Pin locations from the VCU118 board user guide (UG1224) and its master
# XDC; the transceivers' serial pins are placed by their channel sites (the IP configurations).

# ---- configuration ----
set_property CFGBVS GND                                [current_design]
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE           [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN DIV-1   [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES       [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 8           [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES        [current_design]

# ---- 125 MHz oscillator (core clock MMCM) ----
set_property -dict {PACKAGE_PIN AY24 IOSTANDARD LVDS} [get_ports clk_125mhz_p]
set_property -dict {PACKAGE_PIN AY23 IOSTANDARD LVDS} [get_ports clk_125mhz_n]
create_clock -period 8.000 -name clk_125mhz [get_ports clk_125mhz_p]

# ---- user LEDs GPIO_LED_0..7 ----
set_property -dict {PACKAGE_PIN AT32 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN AV34 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN AY30 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[2]}]
set_property -dict {PACKAGE_PIN BB32 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[3]}]
set_property -dict {PACKAGE_PIN BF32 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[4]}]
set_property -dict {PACKAGE_PIN AU37 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[5]}]
set_property -dict {PACKAGE_PIN AV36 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[6]}]
set_property -dict {PACKAGE_PIN BA37 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[7]}]
set_false_path -to [get_ports {led[*]}]
set_output_delay 0 [get_ports {led[*]}]

# ---- PCIe edge connector: lanes 0-7 (GTY quads 227 and 226), refclk on MGTREFCLK0 of quad 227 ----
set_property PACKAGE_PIN AA4 [get_ports {pcie_rx_p[0]}]
set_property PACKAGE_PIN Y7  [get_ports {pcie_tx_p[0]}]
set_property PACKAGE_PIN AB2 [get_ports {pcie_rx_p[1]}]
set_property PACKAGE_PIN AB7 [get_ports {pcie_tx_p[1]}]
set_property PACKAGE_PIN AC4 [get_ports {pcie_rx_p[2]}]
set_property PACKAGE_PIN AD7 [get_ports {pcie_tx_p[2]}]
set_property PACKAGE_PIN AD2 [get_ports {pcie_rx_p[3]}]
set_property PACKAGE_PIN AF7 [get_ports {pcie_tx_p[3]}]
set_property PACKAGE_PIN AE4 [get_ports {pcie_rx_p[4]}]
set_property PACKAGE_PIN AH7 [get_ports {pcie_tx_p[4]}]
set_property PACKAGE_PIN AF2 [get_ports {pcie_rx_p[5]}]
set_property PACKAGE_PIN AK7 [get_ports {pcie_tx_p[5]}]
set_property PACKAGE_PIN AG4 [get_ports {pcie_rx_p[6]}]
set_property PACKAGE_PIN AM7 [get_ports {pcie_tx_p[6]}]
set_property PACKAGE_PIN AH2 [get_ports {pcie_rx_p[7]}]
set_property PACKAGE_PIN AN5 [get_ports {pcie_tx_p[7]}]
set_property PACKAGE_PIN AC9 [get_ports pcie_refclk_p]
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
set_property -dict {PACKAGE_PIN AM17 IOSTANDARD LVCMOS18 PULLUP true} [get_ports pcie_reset_n]
set_false_path -from [get_ports pcie_reset_n]
set_input_delay 0 [get_ports pcie_reset_n]

# ---- QSFP28 cage 1: lane 1 (GTY quad 231, X1Y48), 156.25 MHz refclk on MGTREFCLK0 of quad 231 ----
set_property PACKAGE_PIN V7 [get_ports qsfp1_tx1_p]
set_property PACKAGE_PIN Y2 [get_ports qsfp1_rx1_p]
set_property PACKAGE_PIN W9 [get_ports qsfp1_mgt_refclk_0_p]
create_clock -period 6.400 -name qsfp1_mgt_refclk_0 [get_ports qsfp1_mgt_refclk_0_p]
set_property -dict {PACKAGE_PIN AM21 IOSTANDARD LVCMOS18} [get_ports qsfp1_modsell]
set_property -dict {PACKAGE_PIN BA22 IOSTANDARD LVCMOS18} [get_ports qsfp1_resetl]
set_property -dict {PACKAGE_PIN AL21 IOSTANDARD LVCMOS18} [get_ports qsfp1_modprsl]
set_property -dict {PACKAGE_PIN AP21 IOSTANDARD LVCMOS18} [get_ports qsfp1_intl]
set_property -dict {PACKAGE_PIN AN21 IOSTANDARD LVCMOS18} [get_ports qsfp1_lpmode]
set_false_path -to [get_ports {qsfp1_modsell qsfp1_resetl qsfp1_lpmode}]
set_output_delay 0 [get_ports {qsfp1_modsell qsfp1_resetl qsfp1_lpmode}]
set_false_path -from [get_ports {qsfp1_modprsl qsfp1_intl}]
set_input_delay 0 [get_ports {qsfp1_modprsl qsfp1_intl}]

# ---- clocks between domains ----
# The core clock (MMCM), the PCIe user clock, the Ethernet TX and RX user clocks and the 125 MHz
# helper clock are unrelated. No set_clock_groups: that would also cut the crossings that
# constraints/common/nic_cdc.tcl bounds with set_max_delay, so every path between these clocks
# that is not one of those crossings is timed as if synchronous and fails timing: an
# unconstrained crossing cannot hide.
# The board reset (an OR of PCIe user_reset, MMCM lock and the transceiver's reset-done) is an
# asynchronous input of every nic_cdc_reset; nic_cdc.tcl cuts those paths.
