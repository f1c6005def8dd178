`default_nettype none
// nic_dma_rd: the send-queue engine's AXI4 read master. NumClients clients share AR and R:
//   - AR: a round-robin arbiter feeds one output register. A client request (valid, addr, len)
//     is taken in a cycle where valid and ready are both high; the client may change or drop an
//     untaken request (the fetch engine recomputes its burst every cycle), so stability is the
//     output register's job: m_axi_ar* hold until the slave takes them. The arbiter picks a
//     cycle ahead: the client it serves in a cycle was chosen in the cycle before from the
//     clients requesting then, so a client's ready depends on registers (and the slave's
//     arready) only, never on another client's request in the same cycle (a client's ready
//     steers its own state: without the pick register every client's request logic ran through
//     the arbiter into every other client's state). The price: a request made while no client
//     was waiting is taken a cycle later; requests that wait, and a client's back-to-back
//     requests while it is the only one, flow one a cycle as before. Client c reads with
//     ARID c. Bursts are INCR of full beats (arsize = log2(DataWidth/8)); keeping a burst inside
//     one 4 KiB page and within 256 beats is the client's duty, checked here by assertion.
//   - R: AXI only promises order per ID, so each beat is routed by RID to the client that owns
//     the ID (valid/ready pass straight through). A RID no client owns is accepted and dropped
//     so the bus never hangs (it cannot happen with a correct slave: an assertion says so).
module nic_dma_rd #(
  parameter int DataWidth  = 64,  // AXI data width in bits: 64..256, a power of two
  parameter int NumClients = 2    // clients (ARIDs 0..NumClients-1), 2..16
) (
  input  logic                    clk_i,
  input  logic                    rst_i,
  // clients
  input  logic [NumClients-1:0]    cl_ar_valid_i,
  output logic [NumClients-1:0]    cl_ar_ready_o,
  input  logic [NumClients*64-1:0] cl_ar_addr_i,     // client c in [64c+63:64c]
  input  logic [NumClients*8-1:0]  cl_ar_len_i,      // client c in [8c+7:8c]
  output logic [NumClients-1:0]    cl_r_valid_o,
  input  logic [NumClients-1:0]    cl_r_ready_i,
  output logic [DataWidth-1:0]     cl_r_data_o,      // shared by all clients
  output logic [1:0]               cl_r_resp_o,
  output logic                     cl_r_last_o,
  // AXI4 read master
  output logic [3:0]               m_axi_arid_o,
  output logic [63:0]              m_axi_araddr_o,
  output logic [7:0]               m_axi_arlen_o,
  output logic [2:0]               m_axi_arsize_o,
  output logic [1:0]               m_axi_arburst_o,
  output logic                     m_axi_arvalid_o,
  input  logic                     m_axi_arready_i,
  input  logic [3:0]               m_axi_rid_i,
  input  logic [DataWidth-1:0]     m_axi_rdata_i,
  input  logic [1:0]               m_axi_rresp_i,
  input  logic                     m_axi_rlast_i,
  input  logic                     m_axi_rvalid_i,
  output logic                     m_axi_rready_o
);

  localparam int BeatBytes = DataWidth / 8;
  localparam int SizeLog2  = $clog2(BeatBytes);
  localparam int BeatLast  = BeatBytes - 1;
  localparam logic [63:0] BeatMask = 64'(BeatLast);   // address bits inside a beat

  if (DataWidth < 64 || DataWidth > 256 || (DataWidth & (DataWidth - 1)) != 0) begin : gen_bad_width
    $fatal(1, "nic_dma_rd: DataWidth must be 64, 128 or 256");
  end
  if (NumClients < 2 || NumClients > 16) begin : gen_bad_clients
    $fatal(1, "nic_dma_rd: NumClients must be 2..16 (4-bit ARIDs)");
  end

  // ---- AR: round robin into one output register ----------------------------------------------
  logic        ar_valid_q, ar_valid_d;
  logic [3:0]  ar_id_q, ar_id_d;
  logic [63:0] ar_addr_q, ar_addr_d;
  logic [7:0]  ar_len_q, ar_len_d;
  logic [3:0]  rr_q, rr_d;       // the client granted last
  logic        load;             // the output register takes a request this cycle (if any)
  logic        pick_v_q, pick_v_d;  // a client was requesting in the last cycle: ...
  logic [3:0]  pick_q, pick_d;      // ... the one this cycle serves
  logic [15:0] valid_all;        // one bit per possible client (absent ones: 0)
  logic        accept;           // the output register takes pick_q's request
  logic [3:0]  rr_base;          // the round robin's last granted, this cycle's grant included

  assign valid_all = 16'(cl_ar_valid_i);
  assign load      = !ar_valid_q || m_axi_arready_i;
  assign accept    = load && pick_v_q && valid_all[pick_q];
  assign rr_base   = accept ? pick_q : rr_q;

  // The next cycle's pick, round robin: the lowest requesting client above the last granted one
  // (this cycle's grant counts), else the lowest one.
  always_comb begin
    pick_v_d = 1'b0;
    pick_d   = '0;
    for (int c = NumClients - 1; c >= 0; c--) begin
      if (cl_ar_valid_i[c]) begin
        pick_v_d = 1'b1;
        pick_d   = 4'(c);
      end
    end
    for (int c = NumClients - 1; c >= 0; c--) begin
      if (cl_ar_valid_i[c] && 4'(c) > rr_base) begin
        pick_d = 4'(c);
      end
    end
  end

  always_comb begin
    ar_valid_d = ar_valid_q;
    ar_id_d    = ar_id_q;
    ar_addr_d  = ar_addr_q;
    ar_len_d   = ar_len_q;
    rr_d       = rr_base;
    if (load) begin
      ar_valid_d = accept;
      ar_id_d    = pick_q;
      ar_addr_d  = cl_ar_addr_i[64*pick_q +: 64];
      ar_len_d   = cl_ar_len_i[8*pick_q +: 8];
    end
  end

  always_comb begin
    cl_ar_ready_o = '0;
    for (int c = 0; c < NumClients; c++) begin
      cl_ar_ready_o[c] = load && pick_v_q && pick_q == 4'(c);
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ar_valid_q <= 1'b0;
      ar_id_q    <= '0;
      ar_addr_q  <= '0;
      ar_len_q   <= '0;
      rr_q       <= 4'(NumClients - 1);
      pick_v_q   <= 1'b0;
      pick_q     <= '0;
    end else begin
      pick_v_q   <= pick_v_d;
      pick_q     <= pick_d;
      ar_valid_q <= ar_valid_d;
      ar_id_q    <= ar_id_d;
      ar_addr_q  <= ar_addr_d;
      ar_len_q   <= ar_len_d;
      rr_q       <= rr_d;
    end
  end

  assign m_axi_arid_o    = ar_id_q;
  assign m_axi_araddr_o  = ar_addr_q;
  assign m_axi_arlen_o   = ar_len_q;
  assign m_axi_arsize_o  = 3'(SizeLog2);
  assign m_axi_arburst_o = 2'b01;          // INCR
  assign m_axi_arvalid_o = ar_valid_q;

  // ---- R: routed by RID ---------------------------------------------------------------------
  logic        rid_known;
  logic [15:0] r_ready_all;      // one bit per possible RID (no client: 0)

  assign rid_known   = 32'(m_axi_rid_i) < NumClients;
  assign r_ready_all = 16'(cl_r_ready_i);

  always_comb begin
    cl_r_valid_o = '0;
    for (int c = 0; c < NumClients; c++) begin
      cl_r_valid_o[c] = m_axi_rvalid_i && m_axi_rid_i == 4'(c);
    end
  end

  assign cl_r_data_o    = m_axi_rdata_i;
  assign cl_r_resp_o    = m_axi_rresp_i;
  assign cl_r_last_o    = m_axi_rlast_i;
  assign m_axi_rready_o = rid_known ? r_ready_all[m_axi_rid_i] : 1'b1;

`ifndef SYNTHESIS
  // Immediate assertions in a clocked block: they read the values before the edge (what a
  // concurrent assertion samples) and evaluate a consequent only when its antecedent holds, which
  // costs the simulation far less than Verilator's concurrent assertions (see nic_wqe_fetch).
  logic        ar_held_q;                // AR offered and not taken last cycle
  logic [3:0]  ar_id_held_q;
  logic [63:0] ar_addr_held_q;
  logic [7:0]  ar_len_held_q;

  always_ff @(posedge clk_i) begin
    ar_held_q <= !rst_i && m_axi_arvalid_o && !m_axi_arready_i;
    if (m_axi_arvalid_o && !m_axi_arready_i) begin
      ar_id_held_q   <= m_axi_arid_o;
      ar_addr_held_q <= m_axi_araddr_o;
      ar_len_held_q  <= m_axi_arlen_o;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // AXI: an offered AR stays, unchanged, until the slave takes it.
      if (ar_held_q) begin
        a_ar_stable: assert (m_axi_arvalid_o && m_axi_arid_o == ar_id_held_q &&
                             m_axi_araddr_o == ar_addr_held_q && m_axi_arlen_o == ar_len_held_q);
      end
      if (m_axi_arvalid_o) begin
        // No burst crosses a 4 KiB boundary (AXI forbids it; PCIe would split it).
        a_ar_no_4k_cross: assert ((32'(m_axi_araddr_o[11:0]) + ((32'(m_axi_arlen_o) + 1) << SizeLog2))
                                  <= 4096);
        // Clients ask for whole, aligned beats.
        a_ar_beat_aligned: assert ((m_axi_araddr_o & BeatMask) == '0);
      end
      // Every read data beat belongs to a client.
      if (m_axi_rvalid_i) begin
        a_r_known_id: assert (rid_known);
      end
    end
  end
`endif

endmodule
