`default_nettype none
// nic_eth_pcs_rx: the receive half of the 10GBASE-R / 25GBASE-R PCS (IEEE 802.3 clause 49): block
// lock by sync-header slip (the lock state machine of figure 49-14), the self-synchronising
// descrambler (49.2.10) and the 64b/66b decoder (figure 49-7) back to one XGMII word per block.
//
// Input: one 66-bit block per cycle with serdes_rx_valid_i (the GTY's RXDATAVALID / RXHEADERVALID;
// always high with the asynchronous gearbox at 64 bits), header bit 0 first on the line (data
// = 2'b10, control = 2'b01; see nic_eth_pcs_tx). Block alignment is found here: while not
// locked, every invalid sync header (00 or 11) asks the transceiver to slip its gearbox one bit
// (serdes_rx_slip_o, a one-cycle pulse, as RXGEARBOXSLIP wants), and the next SlipWaitCycles
// valid blocks are ignored while the new alignment settles.
//
// Lock (figure 49-14): 64 consecutive valid headers give block_lock_o; once locked, 16 invalid
// headers within a window of 64 lose it (and slip). hi_ber_o (49.2.13.2.6): 16 invalid headers
// within HiBerBlocks blocks (125 us of blocks: 19531 at 10G, 48828 at 25G). While not locked
// or hi_ber_o, the XGMII output is local fault ordered sets (as the receive state machine's
// RX_INIT does) so the MAC sees no frames.
//
// Decoding: a block whose type or control codes are not in figure 49-7 decodes to eight /E/
// (error) characters, so a frame that contains it reaches the MAC as an errored frame.
module nic_eth_pcs_rx #(
  parameter int SlipWaitCycles = 16,     // blocks ignored after a slip, >= 1
  parameter int HiBerBlocks    = 19531   // the 125 us window of hi_ber, in blocks
) (
  input  logic        clk_i,
  input  logic        rst_i,
  input  logic [63:0] serdes_rx_data_i,
  input  logic [1:0]  serdes_rx_hdr_i,
  input  logic        serdes_rx_valid_i,
  output logic        serdes_rx_slip_o,
  output logic [63:0] xgmii_rxd_o,
  output logic [7:0]  xgmii_rxc_o,
  output logic        xgmii_valid_o,      // a word this cycle (follows serdes_rx_valid_i)
  output logic        block_lock_o,
  output logic        hi_ber_o,
  output logic        error_block_o       // one pulse per block decoded as errors
);

  localparam logic [1:0] SyncData = 2'b10;
  localparam logic [1:0] SyncCtrl = 2'b01;
  localparam logic [63:0] LocalFaultD = 64'h0707_0707_0100_009C;  // lane 0: sequence OS 0x000001, idles
  localparam logic [7:0]  LocalFaultC = 8'hF1;

  function automatic logic [7:0] xgmii_ctrl(input logic [6:0] code);
    case (code)
      7'h00:   xgmii_ctrl = 8'h07;
      7'h06:   xgmii_ctrl = 8'h06;
      7'h2D:   xgmii_ctrl = 8'h1C;
      7'h33:   xgmii_ctrl = 8'h3C;
      7'h4B:   xgmii_ctrl = 8'h7C;
      7'h55:   xgmii_ctrl = 8'hBC;
      7'h66:   xgmii_ctrl = 8'hDC;
      7'h78:   xgmii_ctrl = 8'hF7;
      default: xgmii_ctrl = 8'hFE;   // 0x1E and every undefined code: error
    endcase
  endfunction

  function automatic logic [7:0] os_char(input logic [3:0] o);
    case (o)
      4'h0:    os_char = 8'h9C;
      4'hF:    os_char = 8'h5C;
      default: os_char = 8'h00;      // undefined O code: flagged invalid by the caller
    endcase
  endfunction

  // ---- block lock ----
  logic       sh_valid;
  logic [6:0] sh_cnt_q, sh_cnt_d;
  logic [4:0] sh_invld_cnt_q, sh_invld_cnt_d;
  logic       lock_q, lock_d;
  logic       slip_d, slip_q;
  logic [$clog2(SlipWaitCycles+1)-1:0] slip_wait_q, slip_wait_d;
  logic [$clog2(HiBerBlocks+1)-1:0] ber_timer_q, ber_timer_d;
  logic [4:0] ber_cnt_q, ber_cnt_d;
  logic       hi_ber_q, hi_ber_d;

  assign sh_valid = serdes_rx_hdr_i[0] ^ serdes_rx_hdr_i[1];

  always_comb begin
    sh_cnt_d       = sh_cnt_q;
    sh_invld_cnt_d = sh_invld_cnt_q;
    lock_d         = lock_q;
    slip_d         = 1'b0;
    slip_wait_d    = slip_wait_q;
    if (serdes_rx_valid_i) begin
      if (slip_wait_q != '0) begin
        slip_wait_d = slip_wait_q - 1'b1;
      end else if (sh_valid) begin
        // VALID_SH, then 64_GOOD or back to RESET_CNT at the end of a window of 64.
        if (sh_cnt_q == 7'd63) begin
          if (sh_invld_cnt_q == '0) begin
            lock_d = 1'b1;
          end
          sh_cnt_d       = '0;
          sh_invld_cnt_d = '0;
        end else begin
          sh_cnt_d = sh_cnt_q + 1'b1;
        end
      end else begin
        // INVALID_SH: slip when not locked or at the 16th invalid header of the window.
        if (!lock_q || sh_invld_cnt_q == 5'd15) begin
          lock_d         = 1'b0;
          slip_d         = 1'b1;
          slip_wait_d    = ($clog2(SlipWaitCycles+1))'(SlipWaitCycles);
          sh_cnt_d       = '0;
          sh_invld_cnt_d = '0;
        end else if (sh_cnt_q == 7'd63) begin
          sh_cnt_d       = '0;
          sh_invld_cnt_d = '0;
        end else begin
          sh_cnt_d       = sh_cnt_q + 1'b1;
          sh_invld_cnt_d = sh_invld_cnt_q + 1'b1;
        end
      end
    end
  end

  // hi_ber: 16 invalid headers in one 125 us window (counted only with block lock).
  always_comb begin
    ber_timer_d = ber_timer_q;
    ber_cnt_d   = ber_cnt_q;
    hi_ber_d    = hi_ber_q;
    if (!lock_q) begin
      ber_timer_d = '0;
      ber_cnt_d   = '0;
      hi_ber_d    = 1'b0;
    end else if (serdes_rx_valid_i) begin
      if (ber_timer_q == ($clog2(HiBerBlocks+1))'(HiBerBlocks - 1)) begin
        ber_timer_d = '0;
        ber_cnt_d   = '0;
        hi_ber_d    = ber_cnt_q == 5'd16 || (!sh_valid && ber_cnt_q == 5'd15);
      end else begin
        ber_timer_d = ber_timer_q + 1'b1;
        if (!sh_valid && ber_cnt_q != 5'd16) begin
          ber_cnt_d = ber_cnt_q + 1'b1;
        end
        if (ber_cnt_d == 5'd16) begin
          hi_ber_d = 1'b1;
        end
      end
    end
  end

  // ---- descrambler: out[i] = in[i] ^ in[i-39] ^ in[i-58] over the received payload bits ----
  logic [57:0]  dscr_q;
  logic [121:0] dext;
  logic [63:0]  payload;

  always_comb begin
    dext = {serdes_rx_data_i, dscr_q};
    for (int i = 0; i < 64; i++) begin
      payload[i] = dext[58 + i] ^ dext[58 + i - 39] ^ dext[i];
    end
  end

  // ---- decoder ----
  logic [63:0] rxd;
  logic [7:0]  rxc;
  logic        bad;
  logic [7:0]  btype;

  always_comb begin
    rxd   = payload;
    rxc   = 8'h00;
    bad   = 1'b0;
    btype = payload[7:0];
    if (serdes_rx_hdr_i == SyncData) begin
      rxd = payload;
      rxc = 8'h00;
    end else if (serdes_rx_hdr_i != SyncCtrl) begin
      bad = 1'b1;
    end else begin
      rxc = 8'hFF;
      for (int i = 0; i < 8; i++) begin
        rxd[8*i +: 8] = xgmii_ctrl(payload[8 + 7*i +: 7]);
      end
      case (btype)
        8'h1E: begin
          // already decoded above; any undefined code is /E/ in its lane
        end
        8'h78: begin
          rxd = {payload[63:8], 8'hFB};
          rxc = 8'h01;
        end
        8'h33: begin
          rxd[63:32] = {payload[63:40], 8'hFB};
          rxc        = 8'h1F;
          bad        = payload[39:36] != 4'h0;
        end
        8'h66, 8'h55, 8'h4B: begin
          rxd[31:0] = {payload[31:8], os_char(payload[35:32])};
          bad       = payload[35:32] != 4'h0 && payload[35:32] != 4'hF;
          if (btype == 8'h66) begin
            rxd[63:32] = {payload[63:40], 8'hFB};
            rxc        = 8'h11;
            bad        = bad || payload[39:36] != 4'h0;
          end else if (btype == 8'h55) begin
            rxd[63:32] = {payload[63:40], os_char(payload[39:36])};
            rxc        = 8'h11;
            bad        = bad || (payload[39:36] != 4'h0 && payload[39:36] != 4'hF);
          end else begin
            for (int i = 4; i < 8; i++) begin
              rxd[8*i +: 8] = xgmii_ctrl(payload[8 + 4 + 7*(i - 4) + 24 +: 7]);
            end
            rxc = 8'hF1;
          end
        end
        8'h2D: begin
          rxd[63:32] = {payload[63:40], os_char(payload[39:36])};
          rxc        = 8'h1F;
          bad        = payload[39:36] != 4'h0 && payload[39:36] != 4'hF;
        end
        8'h87, 8'h99, 8'hAA, 8'hB4, 8'hCC, 8'hD2, 8'hE1, 8'hFF: begin
          for (int k = 0; k < 8; k++) begin
            if (btype == nic_eth_term_type(k)) begin
              rxc = 8'hFF << k;
              for (int b = 0; b < k; b++) begin
                rxd[8*b +: 8] = payload[8 + 8*b +: 8];
              end
              rxd[8*k +: 8] = 8'hFD;
              for (int l = k + 1; l < 8; l++) begin
                rxd[8*l +: 8] = xgmii_ctrl(payload[8 + 8*k + (7 - k) + 7*(l - k - 1) +: 7]);
              end
            end
          end
        end
        default: bad = 1'b1;
      endcase
    end
    if (bad) begin
      rxd = {8{8'hFE}};
      rxc = 8'hFF;
    end
  end

  function automatic logic [7:0] nic_eth_term_type(input int k);
    case (k)
      0:       nic_eth_term_type = 8'h87;
      1:       nic_eth_term_type = 8'h99;
      2:       nic_eth_term_type = 8'hAA;
      3:       nic_eth_term_type = 8'hB4;
      4:       nic_eth_term_type = 8'hCC;
      5:       nic_eth_term_type = 8'hD2;
      6:       nic_eth_term_type = 8'hE1;
      default: nic_eth_term_type = 8'hFF;
    endcase
  endfunction

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      sh_cnt_q       <= '0;
      sh_invld_cnt_q <= '0;
      lock_q         <= 1'b0;
      slip_q         <= 1'b0;
      slip_wait_q    <= '0;
      ber_timer_q    <= '0;
      ber_cnt_q      <= '0;
      hi_ber_q       <= 1'b0;
      dscr_q         <= '0;
      xgmii_rxd_o    <= LocalFaultD;
      xgmii_rxc_o    <= LocalFaultC;
      xgmii_valid_o  <= 1'b0;
      error_block_o  <= 1'b0;
    end else begin
      sh_cnt_q       <= sh_cnt_d;
      sh_invld_cnt_q <= sh_invld_cnt_d;
      lock_q         <= lock_d;
      slip_q         <= slip_d;
      slip_wait_q    <= slip_wait_d;
      ber_timer_q    <= ber_timer_d;
      ber_cnt_q      <= ber_cnt_d;
      hi_ber_q       <= hi_ber_d;
      xgmii_valid_o  <= serdes_rx_valid_i;
      error_block_o  <= 1'b0;
      if (serdes_rx_valid_i) begin
        dscr_q <= serdes_rx_data_i[63:6];
        if (lock_q && !hi_ber_q) begin
          xgmii_rxd_o   <= rxd;
          xgmii_rxc_o   <= rxc;
          error_block_o <= bad;
        end else begin
          xgmii_rxd_o <= LocalFaultD;
          xgmii_rxc_o <= LocalFaultC;
        end
      end
    end
  end

  assign serdes_rx_slip_o = slip_q;
  assign block_lock_o     = lock_q;
  assign hi_ber_o         = hi_ber_q;

endmodule
