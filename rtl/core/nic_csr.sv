`default_nettype none
// nic_csr: the BAR0 front end (AXI4-Lite slave, 22-bit byte address, 32-bit data).
//
// Handshake: a write is taken in the cycle AW and W are both valid (awready = wready = that
// condition, while no B response is waiting or it is being taken); its B response (OKAY) follows
// one cycle later. A read address is taken into a register when AR is valid and that register
// is free or moving on (arready); the read itself happens from the register when no R response
// waits or it is being taken, and its data is registered: R returns OKAY two cycles after AR at
// the earliest, one read per cycle back to back. The address register keeps the bus's address
// decode out of the read's data paths (the counters', the MSI-X table's, the CQ states'), which
// otherwise all hung off the AR input in one cycle. Nothing ever waits on the rest of the NIC, so
// the bus can never hang; SLVERR is never returned.
//
// Map (formats/nic.toml; offsets from nic_pkg::REG_*):
//   ID block, CAP_*         read-only, from nic_pkg and the parameters
//   SCRATCH, ARG0..ARG7     read/write (byte strobes honoured)
//   CMD                     write: cmd_valid_o pulses for one cycle with cmd_op_o = wdata[7:0],
//                           cmd_index_o = wdata[23:8] and cmd_args_o = {ARG7, ..., ARG0}
//   QP_STATE_BASE + 4n      reads qp_state_i of QP n
//   CQ_STATE_BASE + 4n      reads the CQ engine's {error[31], producer_index[15:0]} of CQ n
//                           (cq_state_cqn_o -> cq_state_i, combinational, from the address
//                           register)
//   PORT_COUNTERS + 4w      reads word w of nic_port_counters (cnt_rd_word_o -> cnt_rd_data_i,
//                           combinational from the address register; cnt_rd_o marks the cycle
//                           the read happens, which latches a counter's high word when w is a
//                           low word)
//   QP doorbell page n      DB_SQ_PI: sq_db pulse; DB_RQ_PI: rq_db pulse (pi = wdata[15:0]);
//                           DB_SQ_BF .. +0x3F: a word of the BlueFlame WQE copy (below)
//   CQ doorbell page n      DB_CQ_CI_ARM / DB_CQ_MODERATION: cq_db pulse with the 32-bit word,
//                           cq_db_moderation_o = 1 for the moderation word
//   MSIX_TABLE .. MSIX_PBA + 4*ceil(MsixVectors/32)
//                           forwarded to nic_msix: msix_wr_* in the cycle the write is taken,
//                           msix_rd_addr_o -> msix_rd_data_i combinational from the address
//                           register (offsets from MSIX_TABLE)
// Command and doorbell pulses leave registered, one cycle after the write is taken; at most one
// pulse of any kind per cycle. Trigger registers (CMD, doorbells) act on every write to them
// whatever its strobes: a partial write to a trigger has no meaning, and dropping it would lose
// a doorbell. Writes to read-only registers, to a queue number >= NumQps / NumCqs, to unknown
// doorbell offsets or to unmapped addresses are ignored; reads of write-only or unmapped
// addresses return 0.
//
// BlueFlame: one 64-byte WQE copy is kept for the QP whose page was written last (one buffer,
// not one per QP: a copy is used by the doorbell that follows it, so only the latest matters).
// A word counts only when written with all four strobes; a BlueFlame write to another QP's
// page starts a new copy; every SQ_PI doorbell of the copy's QP consumes it (used or not), and
// every CMD discards it (a QP created again never sees a copy meant for its old incarnation).
// The SQ_PI pulse carries sq_db_bf_o = 1 when the copy is complete and belongs to its QP, with
// the 512 bits (byte 0 in [7:0]); nic_wqe_fetch decides whether it is the WQE the doorbell adds.
module nic_csr #(
  parameter int DataWidth     = 64,    // reported in CAP_DATA_WIDTH
  parameter int NumQps        = 16,    // queue pairs, 1..256
  parameter int NumCqs        = 16,    // completion queues, 1..256
  parameter int NumMrs        = 256,   // reported in CAP_MEMORY
  parameter int MttEntries    = 1024,  // reported in CAP_MEMORY
  parameter int MsixVectors   = 16,    // MSI-X table size, 1..2048
  parameter int MaxBurstWqes  = 16,    // reported in CAP_SQ
  parameter int WqeBufEntries = 128,   // reported in CAP_SQ
  parameter int LogMaxSqDepth = 12,    // reported in CAP_SQ
  parameter int LogMaxCqDepth = 14,    // reported in CAP_CQ
  parameter int MaxReads      = 32     // reported in CAP_TRANSPORT: the most Reads per QP, <= 255
) (
  input  logic                  clk_i,
  input  logic                  rst_i,
  // the port's identity, from the platform (read back in PORT_MAC_LO/HI, PORT_IPV4)
  input  logic [47:0]           port_mac_i,
  input  logic [31:0]           port_ipv4_i,
  input  logic [31:0]           rx_drops_i,        // frames the receiver dropped (RX_DROPS)
  // AXI4-Lite slave
  input  logic [21:0]           s_axil_awaddr_i,
  input  logic                  s_axil_awvalid_i,
  output logic                  s_axil_awready_o,
  input  logic [31:0]           s_axil_wdata_i,
  input  logic [3:0]            s_axil_wstrb_i,
  input  logic                  s_axil_wvalid_i,
  output logic                  s_axil_wready_o,
  output logic [1:0]            s_axil_bresp_o,
  output logic                  s_axil_bvalid_o,
  input  logic                  s_axil_bready_i,
  input  logic [21:0]           s_axil_araddr_i,
  input  logic                  s_axil_arvalid_i,
  output logic                  s_axil_arready_o,
  output logic [31:0]           s_axil_rdata_o,
  output logic [1:0]            s_axil_rresp_o,
  output logic                  s_axil_rvalid_o,
  input  logic                  s_axil_rready_i,
  // commands
  output logic                  cmd_valid_o,
  output logic [7:0]            cmd_op_o,
  output logic [15:0]           cmd_index_o,
  output logic [255:0]          cmd_args_o,
  // doorbells
  output logic                  sq_db_valid_o,
  output logic [7:0]            sq_db_qpn_o,
  output logic [15:0]           sq_db_pi_o,
  output logic                  sq_db_bf_o,        // a complete BlueFlame copy for this QP
  output logic [511:0]          sq_db_bf_data_o,   // ... the WQE (valid with sq_db_bf_o)
  output logic                  rq_db_valid_o,
  output logic [7:0]            rq_db_qpn_o,
  output logic [15:0]           rq_db_pi_o,
  output logic                  cq_db_valid_o,
  output logic [7:0]            cq_db_cqn_o,
  output logic                  cq_db_moderation_o,
  output logic [31:0]           cq_db_data_o,
  // state read-back
  input  logic [2*NumQps-1:0]   qp_state_i,
  output logic [7:0]            cq_state_cqn_o,
  input  logic [31:0]           cq_state_i,
  // port counters (nic_transport's nic_port_counters)
  output logic                  cnt_rd_o,
  output logic [4:0]            cnt_rd_word_o,
  input  logic [31:0]           cnt_rd_data_i,
  // MSI-X register port
  output logic                  msix_wr_valid_o,
  output logic [15:0]           msix_wr_addr_o,
  output logic [31:0]           msix_wr_data_o,
  output logic [3:0]            msix_wr_strb_o,
  output logic [15:0]           msix_rd_addr_o,
  input  logic [31:0]           msix_rd_data_i
);

  localparam int PbaWords = (MsixVectors + 31) / 32;
  localparam logic [21:0] PbaOffset = nic_pkg::REG_MSIX_PBA - nic_pkg::REG_MSIX_TABLE;
  localparam logic [21:0] QpDbEnd   = nic_pkg::REG_QP_DB_BASE + 22'(NumQps << nic_pkg::DB_PAGE_SHIFT);
  localparam logic [21:0] CqDbEnd   = nic_pkg::REG_CQ_DB_BASE + 22'(NumCqs << nic_pkg::DB_PAGE_SHIFT);

  if (NumQps < 1 || NumQps > 256 || NumCqs < 1 || NumCqs > 256) begin : gen_bad_queues
    $fatal(1, "nic_csr: NumQps and NumCqs must be 1..256");
  end
  if (MsixVectors < 1 || MsixVectors * 16 > 32'(PbaOffset)) begin : gen_bad_vectors
    $fatal(1, "nic_csr: MsixVectors must be 1..2048");
  end

  // ---- address decode (shared by reads and writes) ----
  typedef enum logic [3:0] {
    R_NONE,       // unmapped
    R_CONST,      // an ID / capability register
    R_SCRATCH,
    R_ARG,
    R_CMD,
    R_QP_STATE,
    R_CQ_STATE,
    R_QP_DB,
    R_CQ_DB,
    R_MSIX,
    R_COUNTERS    // PORT_COUNTERS: 2 * PORT_COUNTER_COUNT words
  } region_e;

  // wa: the word address (byte address [21:2])
  function automatic region_e decode(input logic [19:0] wa);
    logic [21:0] w;
    w = {wa, 2'b00};
    decode = R_NONE;
    if (w <= nic_pkg::REG_CAP_SQ_BF) begin
      decode = R_CONST;
    end else if (w == nic_pkg::REG_SCRATCH) begin
      decode = R_SCRATCH;
    end else if (w >= nic_pkg::REG_ARG0 && w < nic_pkg::REG_ARG0 + 22'd32) begin
      decode = R_ARG;
    end else if (w == nic_pkg::REG_CMD) begin
      decode = R_CMD;
    end else if (w >= nic_pkg::REG_PORT_COUNTERS
                 && w < nic_pkg::REG_PORT_COUNTERS + 22'(8 * nic_pkg::PORT_COUNTER_COUNT)) begin
      decode = R_COUNTERS;
    end else if (w >= nic_pkg::REG_QP_STATE_BASE
                 && w < nic_pkg::REG_QP_STATE_BASE + 22'(4 * NumQps)) begin
      decode = R_QP_STATE;
    end else if (w >= nic_pkg::REG_CQ_STATE_BASE
                 && w < nic_pkg::REG_CQ_STATE_BASE + 22'(4 * NumCqs)) begin
      decode = R_CQ_STATE;
    end else if (w >= nic_pkg::REG_QP_DB_BASE && w < QpDbEnd) begin
      decode = R_QP_DB;
    end else if (w >= nic_pkg::REG_CQ_DB_BASE && w < CqDbEnd) begin
      decode = R_CQ_DB;
    end else if ((w >= nic_pkg::REG_MSIX_TABLE
                  && w < nic_pkg::REG_MSIX_TABLE + 22'(16 * MsixVectors))
                 || (w >= nic_pkg::REG_MSIX_PBA
                     && w < nic_pkg::REG_MSIX_PBA + 22'(4 * PbaWords))) begin
      decode = R_MSIX;
    end
  endfunction

  // ---- registers ----
  logic           bvalid_q, bvalid_d;
  logic           rvalid_q, rvalid_d;
  logic [31:0]    rdata_q, rdata_d;
  logic [31:0]    scratch_q, scratch_d;
  logic [255:0]   args_q;

  logic           cmd_valid_q, cmd_valid_d;
  logic [7:0]     cmd_op_q, cmd_op_d;
  logic [15:0]    cmd_index_q, cmd_index_d;
  logic           sq_db_valid_q, sq_db_valid_d;
  logic           rq_db_valid_q, rq_db_valid_d;
  logic           cq_db_valid_q, cq_db_valid_d;
  logic [7:0]     db_qn_q, db_qn_d;               // queue number of the doorbell pulse
  logic [31:0]    db_data_q, db_data_d;           // the doorbell word
  nic_pkg::qp_db_pi_t db_pi;                      // ... as a QP doorbell's producer index

  assign db_pi = db_data_q;
  logic           cq_db_mod_q, cq_db_mod_d;
  logic           sq_db_bf_q, sq_db_bf_d;         // the SQ pulse carries the BlueFlame copy
  logic [15:0]    bf_mask_q, bf_mask_d;           // copy words written (full strobes)
  logic [7:0]     bf_qpn_q, bf_qpn_d;             // the QP the copy belongs to
  logic [511:0]   bf_data_q;                      // the copy (no reset: bf_mask_q says what is valid)

  // ---- write channel ----
  logic           wr_take;
  region_e        wr_region;
  logic [21:0]    wr_addr;                        // word-aligned write address
  logic [9:0]     wr_qp_page, wr_cq_page;         // doorbell page number (queue number)
  logic [11:0]    wr_db_off;
  logic [31:0]    wr_mask;                        // byte strobes as a bit mask
  logic           wr_bf;                          // the write is to a BlueFlame area
  logic [15:0]    wr_bf_bit;                      // ... its word
  nic_pkg::cmd_t  wr_cmd;                         // the word as a CMD write

  assign wr_cmd = s_axil_wdata_i;

  assign wr_take          = s_axil_awvalid_i && s_axil_wvalid_i && (!bvalid_q || s_axil_bready_i);
  assign s_axil_awready_o = wr_take;
  assign s_axil_wready_o  = wr_take;

  always_comb begin
    wr_addr   = {s_axil_awaddr_i[21:2], 2'b00};
    // Decoded only while a write is offered, its only use (an idle bus costs no decode).
    wr_region = R_NONE;
    if (s_axil_awvalid_i) begin
      wr_region = decode(s_axil_awaddr_i[21:2]);
    end
    // the doorbell areas start on a page boundary
    wr_qp_page = wr_addr[21:12] - nic_pkg::REG_QP_DB_BASE[21:12];
    wr_cq_page = wr_addr[21:12] - nic_pkg::REG_CQ_DB_BASE[21:12];
    wr_db_off = wr_addr[11:0];
    wr_bf     = wr_db_off >= 12'(nic_pkg::DB_SQ_BF) && wr_db_off < 12'(nic_pkg::DB_SQ_BF + 64);
    wr_bf_bit = 16'd1 << wr_db_off[5:2];
    for (int b = 0; b < 4; b++) begin
      wr_mask[8*b +: 8] = {8{s_axil_wstrb_i[b]}};
    end
  end

  always_comb begin
    bvalid_d      = bvalid_q;
    scratch_d     = scratch_q;
    cmd_valid_d   = 1'b0;
    cmd_op_d      = cmd_op_q;
    cmd_index_d   = cmd_index_q;
    sq_db_valid_d = 1'b0;
    rq_db_valid_d = 1'b0;
    cq_db_valid_d = 1'b0;
    db_qn_d       = db_qn_q;
    db_data_d     = db_data_q;
    cq_db_mod_d   = cq_db_mod_q;
    sq_db_bf_d    = 1'b0;
    bf_mask_d     = bf_mask_q;
    bf_qpn_d      = bf_qpn_q;

    if (bvalid_q && s_axil_bready_i) begin
      bvalid_d = 1'b0;
    end
    if (wr_take) begin
      bvalid_d = 1'b1;
      unique case (wr_region)
        R_SCRATCH: begin
          scratch_d = (scratch_q & ~wr_mask) | (s_axil_wdata_i & wr_mask);
        end
        R_ARG: begin
          // written below, word by word (a 256-bit next-state copy every cycle is not needed)
        end
        R_CMD: begin
          bf_mask_d   = '0;
          cmd_valid_d = 1'b1;
          cmd_op_d    = wr_cmd.opcode;
          cmd_index_d = wr_cmd.index;
        end
        R_QP_DB: begin
          db_qn_d       = wr_qp_page[7:0];
          db_data_d     = s_axil_wdata_i;
          sq_db_valid_d = (32'(wr_db_off) == nic_pkg::DB_SQ_PI);
          rq_db_valid_d = (32'(wr_db_off) == nic_pkg::DB_RQ_PI);
          if (sq_db_valid_d && bf_qpn_q == wr_qp_page[7:0]) begin
            sq_db_bf_d = bf_mask_q == 16'hffff;
            bf_mask_d  = '0;
          end
          if (wr_bf) begin
            // A word written with partial strobes is not a copy of the WQE's word: it is
            // invalid until written again in full.
            if (bf_qpn_q != wr_qp_page[7:0]) begin
              bf_qpn_d  = wr_qp_page[7:0];
              bf_mask_d = (&s_axil_wstrb_i) ? wr_bf_bit : 16'd0;
            end else if (&s_axil_wstrb_i) begin
              bf_mask_d = bf_mask_q | wr_bf_bit;
            end else begin
              bf_mask_d = bf_mask_q & ~wr_bf_bit;
            end
          end
        end
        R_CQ_DB: begin
          db_qn_d       = wr_cq_page[7:0];
          db_data_d     = s_axil_wdata_i;
          cq_db_mod_d   = (32'(wr_db_off) == nic_pkg::DB_CQ_MODERATION);
          cq_db_valid_d = (32'(wr_db_off) == nic_pkg::DB_CQ_CI_ARM)
                          || (32'(wr_db_off) == nic_pkg::DB_CQ_MODERATION);
        end
        default: begin
          // read-only, MSI-X (handled below) or unmapped: nothing to store here
        end
      endcase
    end
  end

  // ARG writes: the addressed word only.
  logic        arg_we;
  logic [31:0] arg_wdata;
  assign arg_we    = wr_take && wr_region == R_ARG;
  assign arg_wdata = (args_q[32*wr_addr[4:2] +: 32] & ~wr_mask) | (s_axil_wdata_i & wr_mask);

  // One constant slice per word, enabled by its decoded address: a write at a computed offset
  // (args_q[32*wr_addr[4:2] +: 32]) is a shifter of the whole register in Yosys 0.23.
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      args_q <= '0;
    end else begin
      for (int w = 0; w < 8; w++) begin
        if (arg_we && wr_addr[4:2] == 3'(w)) begin
          args_q[32*w +: 32] <= arg_wdata;
        end
      end
    end
  end

  // BlueFlame words: the addressed word only. In the cycle of the SQ pulse the copy is still the
  // one the doorbell saw: a write taken in that cycle lands after it.
  // (one constant slice per word, as the ARGs)
  always_ff @(posedge clk_i) begin
    for (int w = 0; w < 16; w++) begin
      if (wr_take && wr_region == R_QP_DB && wr_bf && wr_db_off[5:2] == 4'(w)) begin
        bf_data_q[32*w +: 32] <= s_axil_wdata_i;
      end
    end
  end

  // MSI-X writes go straight through, in the cycle the write is taken.
  assign msix_wr_valid_o = wr_take && (wr_region == R_MSIX);
  assign msix_wr_addr_o  = 16'(wr_addr - nic_pkg::REG_MSIX_TABLE);
  assign msix_wr_data_o  = s_axil_wdata_i;
  assign msix_wr_strb_o  = s_axil_wstrb_i;

  // ---- read channel ----
  // Stage 1, the address register: AR is taken (ar_take) into ar_addr_q with its region decoded.
  // Stage 2, the read (rd_go): from the register into rdata_q, when no R response waits or it is
  // being taken. The register is free again in the cycle of its read, so reads flow one a cycle.
  logic           ar_take, rd_go;
  logic           ar_v_q;
  logic [19:0]    ar_addr_q;                      // the word address, byte address [21:2]
  region_e        ar_region_q;
  region_e        ar_region;
  logic [21:0]    rd_addr;
  logic [21:0]    rd_qp_idx, rd_cq_idx;
  logic [31:0]    rd_const;

  // The read-only words, in their formats (nic_pkg).
  nic_pkg::version_t     id_version;
  nic_pkg::ids_t         id_ids;
  nic_pkg::cap_queues_t  cap_queues;
  nic_pkg::cap_memory_t  cap_memory;
  nic_pkg::cap_sq_t      cap_sq;
  nic_pkg::cap_cq_t      cap_cq;
  nic_pkg::cap_transport_t cap_transport;
  nic_pkg::port_mac_hi_t port_mac_hi;
  nic_pkg::cap_sq_bf_t   cap_sq_bf;

  always_comb begin
    id_version                = '0;
    id_version.major          = nic_pkg::VERSION_MAJOR[15:0];
    id_version.minor          = nic_pkg::VERSION_MINOR[15:0];
    id_ids                    = '0;
    id_ids.device_id          = nic_pkg::DEVICE_ID[15:0];
    id_ids.vendor_id          = nic_pkg::VENDOR_ID[15:0];
    cap_queues                = '0;
    cap_queues.num_cqs        = 16'(NumCqs);
    cap_queues.num_qps        = 16'(NumQps);
    cap_memory                = '0;
    cap_memory.mtt_entries    = 16'(MttEntries);
    cap_memory.num_mrs        = 16'(NumMrs);
    cap_sq                    = '0;
    cap_sq.wqe_buffer_entries = 16'(WqeBufEntries);
    cap_sq.max_burst_wqes     = 8'(MaxBurstWqes);
    cap_sq.log_max_depth      = 8'(LogMaxSqDepth);
    cap_cq                    = '0;
    cap_cq.moderation         = 1'b1;
    cap_cq.log_max_depth      = 8'(LogMaxCqDepth);
    // the transport: Send / Receive, Write, SendAndInvalidate and Read (at most MaxReads
    // outstanding per QP in either direction)
    cap_transport             = '0;
    cap_transport.transport   = 1'b1;
    cap_transport.read        = 1'b1;
    cap_transport.send_inv    = 1'b1;
    cap_transport.read_limit  = 8'(MaxReads);
    port_mac_hi               = '0;
    port_mac_hi.mac_hi        = port_mac_i[47:32];
    cap_sq_bf                 = '0;
    cap_sq_bf.bf_bytes        = 8'(nic_pkg::WQE_BYTES);   // one WQE
  end

  assign rd_go            = ar_v_q && (!rvalid_q || s_axil_rready_i);
  assign ar_take          = s_axil_arvalid_i && (!ar_v_q || rd_go);
  assign s_axil_arready_o = ar_take;
  // Decoded only while a read is offered, its only use (an idle bus costs no decode).
  assign ar_region        = s_axil_arvalid_i ? decode(s_axil_araddr_i[21:2]) : R_NONE;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ar_v_q      <= 1'b0;
      ar_addr_q   <= '0;
      ar_region_q <= R_NONE;
    end else begin
      if (ar_take) begin
        ar_v_q      <= 1'b1;
        ar_addr_q   <= s_axil_araddr_i[21:2];
        ar_region_q <= ar_region;
      end else if (rd_go) begin
        ar_v_q <= 1'b0;
      end
    end
  end

  always_comb begin
    rd_addr   = {ar_addr_q, 2'b00};
    rd_qp_idx = (rd_addr - nic_pkg::REG_QP_STATE_BASE) >> 2;
    rd_cq_idx = (rd_addr - nic_pkg::REG_CQ_STATE_BASE) >> 2;

    unique case (rd_addr)
      nic_pkg::REG_ID_MAGIC:       rd_const = nic_pkg::MAGIC;
      nic_pkg::REG_VERSION:        rd_const = id_version;
      nic_pkg::REG_IDS:            rd_const = id_ids;
      nic_pkg::REG_CAP_DATA_WIDTH: rd_const = 32'(DataWidth);
      nic_pkg::REG_CAP_QUEUES:     rd_const = cap_queues;
      nic_pkg::REG_CAP_MEMORY:     rd_const = cap_memory;
      nic_pkg::REG_CAP_MSIX:       rd_const = 32'(MsixVectors);
      nic_pkg::REG_CAP_SQ:         rd_const = cap_sq;
      nic_pkg::REG_CAP_CQ:         rd_const = cap_cq;
      nic_pkg::REG_CAP_TRANSPORT:  rd_const = cap_transport;
      nic_pkg::REG_PORT_MAC_LO:    rd_const = port_mac_i[31:0];
      nic_pkg::REG_PORT_MAC_HI:    rd_const = port_mac_hi;
      nic_pkg::REG_PORT_IPV4:      rd_const = port_ipv4_i;
      nic_pkg::REG_RX_DROPS:       rd_const = rx_drops_i;
      nic_pkg::REG_CAP_SQ_BF:      rd_const = cap_sq_bf;
      default:                     rd_const = 32'd0;
    endcase
  end

  assign cq_state_cqn_o = rd_cq_idx[7:0];
  assign cnt_rd_o       = rd_go && ar_region_q == R_COUNTERS;
  assign cnt_rd_word_o  = 5'((rd_addr - nic_pkg::REG_PORT_COUNTERS) >> 2);
  assign msix_rd_addr_o = 16'(rd_addr - nic_pkg::REG_MSIX_TABLE);

  always_comb begin
    rvalid_d = rvalid_q;
    rdata_d  = rdata_q;
    if (rvalid_q && s_axil_rready_i) begin
      rvalid_d = 1'b0;
    end
    if (rd_go) begin
      rvalid_d = 1'b1;
      unique case (ar_region_q)
        R_CONST:    rdata_d = rd_const;
        R_SCRATCH:  rdata_d = scratch_q;
        R_ARG:      rdata_d = args_q[32*rd_addr[4:2] +: 32];
        R_QP_STATE: rdata_d = {30'd0, qp_state_i[2*rd_qp_idx[7:0] +: 2]};
        R_CQ_STATE: rdata_d = cq_state_i;
        R_MSIX:     rdata_d = msix_rd_data_i;
        R_COUNTERS: rdata_d = cnt_rd_data_i;
        default:    rdata_d = 32'd0;   // CMD, doorbells (write-only) and unmapped
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      bvalid_q      <= 1'b0;
      rvalid_q      <= 1'b0;
      rdata_q       <= '0;
      scratch_q     <= '0;
      cmd_valid_q   <= 1'b0;
      cmd_op_q      <= '0;
      cmd_index_q   <= '0;
      sq_db_valid_q <= 1'b0;
      rq_db_valid_q <= 1'b0;
      cq_db_valid_q <= 1'b0;
      db_qn_q       <= '0;
      db_data_q     <= '0;
      cq_db_mod_q   <= 1'b0;
      sq_db_bf_q    <= 1'b0;
      bf_mask_q     <= '0;
      bf_qpn_q      <= '0;
    end else begin
      bvalid_q      <= bvalid_d;
      rvalid_q      <= rvalid_d;
      rdata_q       <= rdata_d;
      scratch_q     <= scratch_d;
      cmd_valid_q   <= cmd_valid_d;
      cmd_op_q      <= cmd_op_d;
      cmd_index_q   <= cmd_index_d;
      sq_db_valid_q <= sq_db_valid_d;
      rq_db_valid_q <= rq_db_valid_d;
      cq_db_valid_q <= cq_db_valid_d;
      db_qn_q       <= db_qn_d;
      db_data_q     <= db_data_d;
      cq_db_mod_q   <= cq_db_mod_d;
      sq_db_bf_q    <= sq_db_bf_d;
      bf_mask_q     <= bf_mask_d;
      bf_qpn_q      <= bf_qpn_d;
    end
  end

  assign s_axil_bvalid_o = bvalid_q;
  assign s_axil_bresp_o  = 2'b00;   // OKAY
  assign s_axil_rvalid_o = rvalid_q;
  assign s_axil_rdata_o  = rdata_q;
  assign s_axil_rresp_o  = 2'b00;   // OKAY

  // ARGs are stable while the command pulse is out: the next write is taken at the earliest in
  // the cycle of the pulse and lands after it.
  assign cmd_valid_o        = cmd_valid_q;
  assign cmd_op_o           = cmd_op_q;
  assign cmd_index_o        = cmd_index_q;
  assign cmd_args_o         = args_q;
  assign sq_db_valid_o      = sq_db_valid_q;
  assign sq_db_qpn_o        = db_qn_q;
  assign sq_db_pi_o         = db_pi.producer_index;
  assign sq_db_bf_o         = sq_db_bf_q;
  assign sq_db_bf_data_o    = bf_data_q;
  assign rq_db_valid_o      = rq_db_valid_q;
  assign rq_db_qpn_o        = db_qn_q;
  assign rq_db_pi_o         = db_pi.producer_index;
  assign cq_db_valid_o      = cq_db_valid_q;
  assign cq_db_cqn_o        = db_qn_q;
  assign cq_db_moderation_o = cq_db_mod_q;
  assign cq_db_data_o       = db_data_q;

  // Address bits below the word and above the decoded ranges carry no information here.
  logic unused_addr;
  assign unused_addr = ^{s_axil_awaddr_i[1:0], s_axil_araddr_i[1:0], wr_qp_page[9:8],
                         wr_cq_page[9:8], rd_qp_idx[21:8], rd_cq_idx[21:8]};
  // Reserved bits of the CMD and producer-index words (the doorbell word is read whole by CQ
  // doorbells).
  logic unused_words;
  assign unused_words = ^{wr_cmd.rsvd_24, db_pi.rsvd_16};

`ifndef SYNTHESIS
  // Immediate assertions in a clocked block: they read the values before the edge (what a
  // concurrent assertion samples) and evaluate a consequent only when its antecedent holds, which
  // costs the simulation far less than Verilator's concurrent assertions (see nic_wqe_fetch).
  logic        b_held_q, r_held_q;       // a response was offered and not taken last cycle
  logic [31:0] r_data_held_q;

  always_ff @(posedge clk_i) begin
    b_held_q <= !rst_i && s_axil_bvalid_o && !s_axil_bready_i;
    r_held_q <= !rst_i && s_axil_rvalid_o && !s_axil_rready_i;
    if (s_axil_rvalid_o && !s_axil_rready_i) begin
      r_data_held_q <= s_axil_rdata_o;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // At most one command or doorbell pulse per cycle (the engines rely on it).
      a_one_pulse: assert ($onehot0({cmd_valid_o, sq_db_valid_o, rq_db_valid_o, cq_db_valid_o}));
      // Doorbells name existing queues.
      if (sq_db_valid_o || rq_db_valid_o) begin
        a_sq_db_in_range: assert (32'(sq_db_qpn_o) < NumQps);
      end
      if (cq_db_valid_o) begin
        a_cq_db_in_range: assert (32'(cq_db_cqn_o) < NumCqs);
      end
      // Responses hold still until taken (AXI rule).
      if (b_held_q) begin
        a_b_stable: assert (s_axil_bvalid_o);
      end
      if (r_held_q) begin
        a_r_stable: assert (s_axil_rvalid_o && s_axil_rdata_o == r_data_held_q);
      end
    end
  end
`endif

endmodule
