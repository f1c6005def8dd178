# Creates and configures the transceiver IP `eth_gty_10g` (UltraScale FPGAs Transceivers Wizard,
# gtwizard_ultrascale) for the Ethernet lane of the board in the config read before
# (fw/<board>/config.tcl): one GTY channel at cfg_eth_gt_channel, 10GBASE-R (10.3125 Gb/s) from
# the 156.25 MHz QSFP reference clock (the quad's MGTREFCLK0 or 1: cfg_eth_refclk) through
# QPLL0, 64B/66B with the asynchronous gearbox on both sides and a 64-bit user interface (one
# block per 156.25 MHz TXUSRCLK2 cycle: the mode rtl/eth/nic_eth_pcs_tx assumes), TX and RX user
# clocks built in the board top (BUFG_GT), the reset helper in the core running from the
# free-running clock.

create_ip -name gtwizard_ultrascale -vendor xilinx.com -library ip -module_name eth_gty_10g \
    -dir $cfg_ip_dir

set_property -dict [list \
    CONFIG.GT_TYPE {GTY} \
    CONFIG.PRESET {GTY-10GBASE-R} \
    CONFIG.CHANNEL_ENABLE $cfg_eth_gt_channel \
    CONFIG.TX_MASTER_CHANNEL $cfg_eth_gt_channel \
    CONFIG.RX_MASTER_CHANNEL $cfg_eth_gt_channel \
    CONFIG.TX_LINE_RATE {10.3125} \
    CONFIG.TX_PLL_TYPE {QPLL0} \
    CONFIG.TX_REFCLK_FREQUENCY {156.25} \
    CONFIG.TX_REFCLK_SOURCE "$cfg_eth_gt_channel $cfg_eth_refclk" \
    CONFIG.TX_DATA_ENCODING {64B66B_ASYNC} \
    CONFIG.TX_USER_DATA_WIDTH {64} \
    CONFIG.TX_INT_DATA_WIDTH {32} \
    CONFIG.TX_BUFFER_MODE {1} \
    CONFIG.TX_OUTCLK_SOURCE {TXPROGDIVCLK} \
    CONFIG.RX_LINE_RATE {10.3125} \
    CONFIG.RX_PLL_TYPE {QPLL0} \
    CONFIG.RX_REFCLK_FREQUENCY {156.25} \
    CONFIG.RX_REFCLK_SOURCE "$cfg_eth_gt_channel $cfg_eth_refclk" \
    CONFIG.RX_DATA_DECODING {64B66B_ASYNC} \
    CONFIG.RX_USER_DATA_WIDTH {64} \
    CONFIG.RX_INT_DATA_WIDTH {32} \
    CONFIG.RX_BUFFER_MODE {1} \
    CONFIG.RX_OUTCLK_SOURCE {RXPROGDIVCLK} \
    CONFIG.RX_EQ_MODE {DFE} \
    CONFIG.RX_PPM_OFFSET {200} \
    CONFIG.INS_LOSS_NYQ {20} \
    CONFIG.LOCATE_COMMON {CORE} \
    CONFIG.LOCATE_RESET_CONTROLLER {CORE} \
    CONFIG.LOCATE_TX_USER_CLOCKING {EXAMPLE_DESIGN} \
    CONFIG.LOCATE_RX_USER_CLOCKING {EXAMPLE_DESIGN} \
    CONFIG.FREERUN_FREQUENCY $cfg_freerun_mhz \
    CONFIG.ENABLE_OPTIONAL_PORTS {} \
] [get_ips eth_gty_10g]
