`default_nettype none
// nic_eth_pcs_tx: the transmit half of the 10GBASE-R / 25GBASE-R PCS (IEEE 802.3 clause 49; 25G
// uses the same PCS, clause 107): one XGMII word (8 lanes, lane 0 = bits [7:0], sent first) per
// cycle is encoded into one 66-bit block (64b/66b, figure 49-7), its payload scrambled by the
// self-synchronising scrambler G(x) = 1 + x^39 + x^58 (49.2.6), and handed to the transceiver as a
// 2-bit sync header and 64 bits of payload.
//
// Bit order: serdes_tx_hdr_o[0] and serdes_tx_data_o[0] are the first bits on the line (IEEE
// TxB<0>, LSB first), so a data block has header 2'b10 and a control block 2'b01. The board
// adapts this to its transceiver (the GTY's TXHEADER sends bit 1 first: see fw/common).
//
// ce_i: the transceiver takes a block in this cycle. Tie it high with the GTY's asynchronous
// gearbox (one block every TXUSRCLK cycle, line rate / 66 = 156.25 MHz for 10G); with the
// synchronous gearbox it is low in the pause cycles of the sequence counter and everything
// holds. The XGMII input is taken when ce_i is high; the output is registered.
//
// Encoding: every block type of figure 49-7 (data, C, S0, S4, T0..T7, O0, O4 and their
// combinations). A word that has none of these forms (a control byte where data must be, an
// unknown control character) becomes an error block (eight /E/), as 49.2.4.4 asks.
module nic_eth_pcs_tx (
  input  logic        clk_i,
  input  logic        rst_i,
  input  logic        ce_i,
  input  logic [63:0] xgmii_txd_i,
  input  logic [7:0]  xgmii_txc_i,
  output logic [63:0] serdes_tx_data_o,
  output logic [1:0]  serdes_tx_hdr_o
);

  localparam logic [1:0] SyncData = 2'b10;
  localparam logic [1:0] SyncCtrl = 2'b01;

  // 7-bit BASE-R control code of an XGMII control byte; 8'hFF marks "none" (not a control code).
  function automatic logic [7:0] ctrl_code(input logic [7:0] x);
    case (x)
      8'h07:   ctrl_code = 8'h00;  // idle
      8'h06:   ctrl_code = 8'h06;  // LPI
      8'hFE:   ctrl_code = 8'h1E;  // error
      8'h1C:   ctrl_code = 8'h2D;  // reserved 0
      8'h3C:   ctrl_code = 8'h33;
      8'h7C:   ctrl_code = 8'h4B;
      8'hBC:   ctrl_code = 8'h55;
      8'hDC:   ctrl_code = 8'h66;
      8'hF7:   ctrl_code = 8'h78;  // reserved 5
      default: ctrl_code = 8'hFF;
    endcase
  endfunction

  // O code of an ordered-set lane: sequence 0x9C -> 0x0, signal 0x5C -> 0xF; 5'h10 = none.
  function automatic logic [4:0] o_code(input logic [7:0] x);
    case (x)
      8'h9C:   o_code = 5'h00;
      8'h5C:   o_code = 5'h0F;
      default: o_code = 5'h10;
    endcase
  endfunction

  logic [63:0] d;
  logic [7:0]  c;
  logic [55:0] cc;        // the 8 lanes' 7-bit control codes, lane i at [7i +: 7]
  logic [7:0]  cc_ok;     // lane i is a control byte with a control code
  logic [63:0] payload;
  logic [1:0]  hdr;
  logic [57:0] scr_q;     // the last 58 scrambled bits sent (bit 57 the latest)
  logic [63:0] scrambled;
  logic [127:0] ext;
  logic [4:0]  o0, o4;    // O codes of lanes 0 and 4 (bit 4 set: not an ordered-set character)
  logic [7:0]  code;
  logic [63:0] p;

  always_comb begin
    d = xgmii_txd_i;
    c = xgmii_txc_i;
    for (int i = 0; i < 8; i++) begin
      code = ctrl_code(d[8*i +: 8]);
      cc[7*i +: 7] = code[6:0];
      cc_ok[i]     = c[i] && code != 8'hFF;
    end

    o0      = o_code(d[7:0]);
    o4      = o_code(d[39:32]);
    code    = '0;
    p       = '0;
    hdr     = SyncCtrl;
    payload = {{8{7'h1E}}, 8'h1E};   // default: an error block, all /E/
    if (c == 8'h00) begin
      hdr     = SyncData;
      payload = d;
    end else if (cc_ok == 8'hFF) begin
      payload = {cc, 8'h1E};
    end else if (c == 8'h01 && d[7:0] == 8'hFB) begin
      payload = {d[63:8], 8'h78};
    end else if (c == 8'h1F && cc_ok[3:0] == 4'hF && d[39:32] == 8'hFB) begin
      payload = {d[63:40], 4'h0, cc[27:0], 8'h33};
    end else if (c == 8'h11 && !o0[4] && d[39:32] == 8'hFB) begin
      payload = {d[63:40], 4'h0, o0[3:0], d[31:8], 8'h66};
    end else if (c == 8'h11 && !o0[4] && !o4[4]) begin
      payload = {d[63:40], o4[3:0], o0[3:0], d[31:8], 8'h55};
    end else if (c == 8'hF1 && !o0[4] && cc_ok[7:4] == 4'hF) begin
      payload = {cc[55:28], o0[3:0], d[31:8], 8'h4B};
    end else if (c == 8'h1F && cc_ok[3:0] == 4'hF && !o4[4]) begin
      payload = {d[63:40], o4[3:0], cc[27:0], 8'h2D};
    end else begin
      // Terminate in lane k: lanes < k data, lane k /T/, lanes > k control codes.
      for (int k = 0; k < 8; k++) begin
        if (c == (8'hFF << k) && d[8*k +: 8] == 8'hFD
            && (cc_ok | ~(8'hFE << k)) == 8'hFF) begin
          p = '0;
          for (int b = 0; b < k; b++) begin
            p[8 + 8*b +: 8] = d[8*b +: 8];
          end
          for (int l = k + 1; l < 8; l++) begin
            p[8 + 8*k + (7 - k) + 7*(l - k - 1) +: 7] = cc[7*l +: 7];
          end
          case (k)
            0: p[7:0] = 8'h87;
            1: p[7:0] = 8'h99;
            2: p[7:0] = 8'hAA;
            3: p[7:0] = 8'hB4;
            4: p[7:0] = 8'hCC;
            5: p[7:0] = 8'hD2;
            6: p[7:0] = 8'hE1;
            default: p[7:0] = 8'hFF;
          endcase
          payload = p;
        end
      end
    end

    // Scrambler: s[i] = payload[i] ^ s[i-39] ^ s[i-58], bit 0 first; ext[58 + i] is s[i] and
    // ext[57:0] the previous block's last 58 scrambled bits.
    ext = {70'h0, scr_q};
    for (int i = 0; i < 64; i++) begin
      ext[58 + i] = payload[i] ^ ext[58 + i - 39] ^ ext[i];
    end
    scrambled = ext[121:58];
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      scr_q            <= {58{1'b1}};
      serdes_tx_data_o <= '0;
      serdes_tx_hdr_o  <= SyncCtrl;
    end else if (ce_i) begin
      scr_q            <= scrambled[63:6];
      serdes_tx_data_o <= scrambled;
      serdes_tx_hdr_o  <= hdr;
    end
  end

endmodule
