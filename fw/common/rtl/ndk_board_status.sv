`default_nettype none
// ndk_board_status: what a board's LEDs show, the same on every board (each README lists which
// LED is which). Heartbeats blink at about 1 Hz from the core clock and the Ethernet TX clock,
// so a dark heartbeat names the clock that does not run. The status inputs are level signals
// from other domains; a LED does not care for a cycle's skew, so they are synchronised only to
// keep the flip-flops clean (nic_cdc_sync).
module ndk_board_status #(
  parameter int CoreClockMhz = 40   // core clock, for the heartbeat
) (
  input  wire       core_clk_i,
  input  wire       eth_tx_clk_i,      // 156.25 MHz
  input  wire       pcie_link_up_i,    // any domain
  input  wire       eth_block_lock_i,  // any domain
  input  wire       qsfp_present_i,    // pin level
  input  wire       clocks_ok_i,       // any domain: MMCM locked and transceiver reset done
  output wire [5:0] led_o              // {eth_tx heartbeat, core heartbeat, clocks ok, module present, block lock, link up}
);

  localparam int CoreHalfSecond = CoreClockMhz * 500000;

  logic [31:0] core_cnt_q = '0;
  logic        core_beat_q = 1'b0;
  logic [26:0] tx_cnt_q = '0;
  logic [3:0]  st;

  always_ff @(posedge core_clk_i) begin
    if (core_cnt_q == 32'(CoreHalfSecond - 1)) begin
      core_cnt_q  <= '0;
      core_beat_q <= !core_beat_q;
    end else begin
      core_cnt_q <= core_cnt_q + 1'b1;
    end
  end

  always_ff @(posedge eth_tx_clk_i) begin
    tx_cnt_q <= tx_cnt_q + 1'b1;    // bit 26 toggles every 0.43 s at 156.25 MHz
  end

  nic_cdc_sync #(.Width(4), .Stages(2), .ResetValue(1'b0)) u_sync (
    .clk_i(core_clk_i), .rst_i(1'b0),
    .d_i({clocks_ok_i, qsfp_present_i, eth_block_lock_i, pcie_link_up_i}), .q_o(st)
  );

  assign led_o = {tx_cnt_q[26], core_beat_q, st};

endmodule
