`default_nettype none
// nic_eth_regs: the board's port registers, an AXI4-Lite slave (32-bit registers) in the core
// clock that the board wrapper places in BAR0 beside nic_core's window (docs/board.md: offset
// 0x3F0000, the last 64 KiB of BAR0, which the core's register map leaves unused). The host
// writes the port's MAC and IPv4 addresses here; port_mac_o / port_ipv4_o feed nic_core's
// port_mac_i / port_ipv4_i, so the core's read-only PORT_MAC_* / PORT_IPV4 registers show them.
//
//   0x00 ETH_ID        ro  0x4E444245 ("NDBE")
//   0x04 PORT_MAC_LO   rw  mac[31:0]
//   0x08 PORT_MAC_HI   rw  mac[47:32] in [15:0]
//   0x0C PORT_IPV4     rw  ip[31:24] is the first byte on the wire
//   0x10 LINK_STATUS   ro  {hi_ber[1], block_lock[0]}
//   0x14 TX_FRAMES     ro  frames sent
//   0x18 TX_DROPS      ro  frames dropped on transmit (longer than the TX FIFO, or underrun)
//   0x1C RX_FRAMES     ro  good frames received
//   0x20 RX_BAD_FCS    ro  frames dropped for a wrong FCS
//   0x24 RX_ERRORS     ro  frames dropped for another fault (runt, too long, error characters, SFD)
//   0x28 RX_OVERFLOWS  ro  good frames dropped because the RX FIFO was full
// Counters count since reset and wrap. An access outside these offsets answers SLVERR (reads
// return 0); writes to read-only registers are ignored (OKAY). Writes honour wstrb.
module nic_eth_regs #(
  parameter logic [47:0] DefaultMac  = 48'h02_00_00_00_00_01,  // a locally administered address
  parameter logic [31:0] DefaultIpv4 = 32'hC0_A8_00_01          // 192.168.0.1
) (
  input  logic        clk_i,
  input  logic        rst_i,
  input  logic [15:0] s_axil_awaddr_i,
  input  logic        s_axil_awvalid_i,
  output logic        s_axil_awready_o,
  input  logic [31:0] s_axil_wdata_i,
  input  logic [3:0]  s_axil_wstrb_i,
  input  logic        s_axil_wvalid_i,
  output logic        s_axil_wready_o,
  output logic [1:0]  s_axil_bresp_o,
  output logic        s_axil_bvalid_o,
  input  logic        s_axil_bready_i,
  input  logic [15:0] s_axil_araddr_i,
  input  logic        s_axil_arvalid_i,
  output logic        s_axil_arready_o,
  output logic [31:0] s_axil_rdata_o,
  output logic [1:0]  s_axil_rresp_o,
  output logic        s_axil_rvalid_o,
  input  logic        s_axil_rready_i,
  output logic [47:0] port_mac_o,
  output logic [31:0] port_ipv4_o,
  input  logic        block_lock_i,
  input  logic        hi_ber_i,
  input  logic [31:0] stat_tx_frames_i,
  input  logic [31:0] stat_tx_drops_i,
  input  logic [31:0] stat_rx_frames_i,
  input  logic [31:0] stat_rx_bad_fcs_i,
  input  logic [31:0] stat_rx_errors_i,
  input  logic [31:0] stat_rx_overflows_i
);

  localparam logic [1:0] RespOkay   = 2'b00;
  localparam logic [1:0] RespSlvErr = 2'b10;

  logic [47:0] mac_q, mac_d;
  logic [31:0] ip_q, ip_d;
  logic        bvalid_q, bvalid_d;
  logic [1:0]  bresp_q, bresp_d;
  logic        rvalid_q, rvalid_d;
  logic [1:0]  rresp_q, rresp_d;
  logic [31:0] rdata_q, rdata_d;
  logic        do_write, do_read;

  function automatic logic [31:0] merge(input logic [31:0] old, input logic [31:0] v,
                                        input logic [3:0] strb);
    merge = old;
    for (int i = 0; i < 4; i++) begin
      if (strb[i]) begin
        merge[8*i +: 8] = v[8*i +: 8];
      end
    end
  endfunction

  // A write takes address and data together; one response outstanding at a time.
  assign do_write         = s_axil_awvalid_i && s_axil_wvalid_i && !bvalid_q;
  assign s_axil_awready_o = do_write;
  assign s_axil_wready_o  = do_write;
  assign do_read          = s_axil_arvalid_i && !rvalid_q;
  assign s_axil_arready_o = do_read;

  always_comb begin
    mac_d    = mac_q;
    ip_d     = ip_q;
    bvalid_d = bvalid_q && !s_axil_bready_i;
    bresp_d  = bresp_q;
    rvalid_d = rvalid_q && !s_axil_rready_i;
    rresp_d  = rresp_q;
    rdata_d  = rdata_q;
    if (do_write) begin
      bvalid_d = 1'b1;
      bresp_d  = RespOkay;
      unique case (s_axil_awaddr_i[15:2])
        14'h0001: mac_d[31:0]  = merge(mac_q[31:0], s_axil_wdata_i, s_axil_wstrb_i);
        14'h0002: mac_d[47:32] = 16'(merge({16'h0, mac_q[47:32]}, s_axil_wdata_i, s_axil_wstrb_i));
        14'h0003: ip_d         = merge(ip_q, s_axil_wdata_i, s_axil_wstrb_i);
        14'h0000, 14'h0004, 14'h0005, 14'h0006, 14'h0007, 14'h0008, 14'h0009, 14'h000A: begin
        end
        default:  bresp_d = RespSlvErr;
      endcase
    end
    if (do_read) begin
      rvalid_d = 1'b1;
      rresp_d  = RespOkay;
      unique case (s_axil_araddr_i[15:2])
        14'h0000: rdata_d = 32'h4E44_4245;
        14'h0001: rdata_d = mac_q[31:0];
        14'h0002: rdata_d = {16'h0, mac_q[47:32]};
        14'h0003: rdata_d = ip_q;
        14'h0004: rdata_d = {30'h0, hi_ber_i, block_lock_i};
        14'h0005: rdata_d = stat_tx_frames_i;
        14'h0006: rdata_d = stat_tx_drops_i;
        14'h0007: rdata_d = stat_rx_frames_i;
        14'h0008: rdata_d = stat_rx_bad_fcs_i;
        14'h0009: rdata_d = stat_rx_errors_i;
        14'h000A: rdata_d = stat_rx_overflows_i;
        default: begin
          rdata_d = '0;
          rresp_d = RespSlvErr;
        end
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      mac_q    <= DefaultMac;
      ip_q     <= DefaultIpv4;
      bvalid_q <= 1'b0;
      bresp_q  <= RespOkay;
      rvalid_q <= 1'b0;
      rresp_q  <= RespOkay;
      rdata_q  <= '0;
    end else begin
      mac_q    <= mac_d;
      ip_q     <= ip_d;
      bvalid_q <= bvalid_d;
      bresp_q  <= bresp_d;
      rvalid_q <= rvalid_d;
      rresp_q  <= rresp_d;
      rdata_q  <= rdata_d;
    end
  end

  assign port_mac_o      = mac_q;
  assign port_ipv4_o     = ip_q;
  assign s_axil_bvalid_o = bvalid_q;
  assign s_axil_bresp_o  = bresp_q;
  assign s_axil_rvalid_o = rvalid_q;
  assign s_axil_rresp_o  = rresp_q;
  assign s_axil_rdata_o  = rdata_q;

  // Address bits [1:0] select a byte lane, which wstrb already does.
  logic unused_addr;
  assign unused_addr = ^{s_axil_awaddr_i[1:0], s_axil_araddr_i[1:0]};

endmodule
