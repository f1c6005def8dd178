`default_nettype none
// Black-box stub of the Vivado IP `eth_gty_10g` (UltraScale FPGAs Transceivers Wizard,
// gtwizard_ultrascale, AMD PG182 / UG578) as fw/common/ip/eth_gty_10g.tcl configures it: one
// GTY channel, 10.3125 Gb/s from a 156.25 MHz reference through QPLL0 (common block in the core),
// 64B/66B with the asynchronous gearbox on both sides, 64-bit user interface (TXDATA / RXDATA
// ports are 128 bits wide, the upper half unused), user clocking helpers in the example design
// (the board top builds TXUSRCLK / RXUSRCLK with BUFG_GT), reset controller helper in the core.
// The ports are the wizard's for this configuration; only the Yosys check reads this file.
(* blackbox *)
module eth_gty_10g (
  input  wire         gtwiz_userclk_tx_active_in,
  input  wire         gtwiz_userclk_rx_active_in,
  input  wire         gtwiz_reset_clk_freerun_in,
  input  wire         gtwiz_reset_all_in,
  input  wire         gtwiz_reset_tx_pll_and_datapath_in,
  input  wire         gtwiz_reset_tx_datapath_in,
  input  wire         gtwiz_reset_rx_pll_and_datapath_in,
  input  wire         gtwiz_reset_rx_datapath_in,
  output wire         gtwiz_reset_rx_cdr_stable_out,
  output wire         gtwiz_reset_tx_done_out,
  output wire         gtwiz_reset_rx_done_out,
  input  wire [0:0]   gtrefclk00_in,
  output wire [0:0]   qpll0outclk_out,
  output wire [0:0]   qpll0outrefclk_out,
  input  wire [0:0]   gtyrxn_in,
  input  wire [0:0]   gtyrxp_in,
  input  wire [0:0]   rxgearboxslip_in,
  input  wire [0:0]   rxusrclk_in,
  input  wire [0:0]   rxusrclk2_in,
  input  wire [127:0] txdata_in,
  input  wire [5:0]   txheader_in,
  input  wire [6:0]   txsequence_in,
  input  wire [0:0]   txusrclk_in,
  input  wire [0:0]   txusrclk2_in,
  output wire [0:0]   gtpowergood_out,
  output wire [0:0]   gtytxn_out,
  output wire [0:0]   gtytxp_out,
  output wire [127:0] rxdata_out,
  output wire [1:0]   rxdatavalid_out,
  output wire [5:0]   rxheader_out,
  output wire [1:0]   rxheadervalid_out,
  output wire [0:0]   rxoutclk_out,
  output wire [0:0]   rxpmaresetdone_out,
  output wire [0:0]   rxprgdivresetdone_out,
  output wire [1:0]   rxstartofseq_out,
  output wire [0:0]   txoutclk_out,
  output wire [0:0]   txpmaresetdone_out,
  output wire [0:0]   txprgdivresetdone_out
);
endmodule
