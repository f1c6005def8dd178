`default_nettype none
// nic_msix: the MSI-X table and pending-bit array (PBA), and the message generator.
//
// Register port (from nic_csr; offsets are bytes from MSIX_TABLE, 32-bit accesses):
//   reg_wr_valid_i / reg_wr_addr_i / reg_wr_data_i / reg_wr_strb_i: one write per pulse.
//   reg_rd_addr_i -> reg_rd_data_o: combinational read (nic_csr registers the result).
//   Table: vector v at 16*v: {addr_lo, addr_hi, data, control} (nic_pkg::msix_offset_t names the
//   vector and the word); the control word's mask (msix_control_t) is the only control bit, the
//   others read 0; addr_lo keeps only its dword address (msix_addr_lo_t: messages are DWORD
//   aligned, as PCIe says).
//   PBA: at MSIX_PBA - MSIX_TABLE, 32 vectors per register, read-only. Anything else reads 0 and
//   ignores writes.
// Interrupt requests (from nic_cq_engine): irq_valid_i / irq_vector_i / irq_ready_o.
//   Masked vector: the request is accepted at once and sets the vector's pending bit.
//   Unmasked vector: the request is accepted when the message register is free and becomes one
//   message. A pending vector whose mask is cleared sends its message, and its pending bit clears
//   (pending vectors go first, lowest vector number first).
// Messages (to nic_dma_wr port 1): msg_valid_o / msg_addr_o / msg_data_o / msg_ready_i, a 4-byte
//   write of the entry's data to the entry's address, read from the table when the message is
//   made. Reset masks every vector and clears the PBA (PCIe); the address and data words have
//   no reset value, as PCIe leaves them undefined.
// Function mask: fn_masked_i is high while the function may not send MSI-X messages (its
//   Message Control has MSI-X Enable 0 or Function Mask 1; the board brings it from the PCIe
//   configuration space, synchronised). It masks every vector as a vector mask does: requests
//   set pending bits, and the pending vectors send their messages (and clear their bits) once
//   the function is unmasked and enabled (PCIe 6.1 6.1.4.5: a message is never lost to a mask).
module nic_msix #(
  parameter int MsixVectors = 16  // table size, 1..2048 (the table must end below the PBA)
) (
  input  logic        clk_i,
  input  logic        rst_i,
  input  logic        fn_masked_i,   // MSI-X disabled or the function masked: hold every message
  // register port
  input  logic        reg_wr_valid_i,
  input  logic [15:0] reg_wr_addr_i,
  input  logic [31:0] reg_wr_data_i,
  input  logic [3:0]  reg_wr_strb_i,
  input  logic [15:0] reg_rd_addr_i,
  output logic [31:0] reg_rd_data_o,
  // interrupt requests
  input  logic        irq_valid_i,
  input  logic [15:0] irq_vector_i,
  output logic        irq_ready_o,
  // messages
  output logic        msg_valid_o,
  output logic [63:0] msg_addr_o,
  output logic [31:0] msg_data_o,
  input  logic        msg_ready_i
);

  localparam int VecBits  = (MsixVectors > 1) ? $clog2(MsixVectors) : 1;
  localparam int PbaWords = (MsixVectors + 31) / 32;
  localparam int PbaBits  = PbaWords * 32;
  localparam logic [15:0] PbaOffset = 16'(nic_pkg::REG_MSIX_PBA - nic_pkg::REG_MSIX_TABLE);

  if (MsixVectors < 1 || MsixVectors * 16 > 32'(PbaOffset)) begin : gen_bad_vectors
    $fatal(1, "nic_msix: MsixVectors must be 1..2048");
  end

  // Table words, written by software only: plain RAM arrays (no reset; PCIe leaves them
  // undefined). The mask and pending bits need reset values, so they are flip-flops.
  logic [31:0] addr_lo_mem [MsixVectors];
  logic [31:0] addr_hi_mem [MsixVectors];
  logic [31:0] data_mem    [MsixVectors];

  logic [MsixVectors-1:0] mask_q, mask_d;
  logic [MsixVectors-1:0] pend_q, pend_d;

  logic                msg_valid_q, msg_valid_d;
  logic [63:0]         msg_addr_q, msg_addr_d;
  logic [31:0]         msg_data_q, msg_data_d;
  logic [VecBits-1:0]  msg_vec_q, msg_vec_d;     // vector of the message (checked by assertions)

  // ---- register writes ----
  // the words of an entry, as msix_offset_t.word numbers them
  localparam logic [1:0] WordAddrLo = 2'd0, WordAddrHi = 2'd1, WordData = 2'd2, WordControl = 2'd3;

  nic_pkg::msix_offset_t  wr_off;
  logic                   wr_table;                  // the write hits the table
  logic [VecBits-1:0]     wr_vec;
  logic [1:0]             wr_word;
  logic [31:0]            wr_old, wr_merged;
  nic_pkg::msix_control_t ctl_old, ctl_new;
  nic_pkg::msix_addr_lo_t merged_addr_lo, addr_lo_new;
  logic                   we_addr_lo, we_addr_hi, we_data;

  always_comb begin
    wr_off    = reg_wr_addr_i;
    wr_table  = reg_wr_valid_i && (32'(reg_wr_addr_i) < MsixVectors * 16);
    wr_vec    = VecBits'(wr_off.entry);
    wr_word   = wr_off.word;
    ctl_old   = '0;
    wr_old    = 32'd0;
    wr_merged = 32'd0;
    // The merged word matters only for a table write (no per-cycle work on an idle port).
    if (wr_table) begin
      ctl_old.mask = mask_q[wr_vec];
      unique case (wr_word)
        WordAddrLo: wr_old = addr_lo_mem[wr_vec];
        WordAddrHi: wr_old = addr_hi_mem[wr_vec];
        WordData:   wr_old = data_mem[wr_vec];
        default:    wr_old = ctl_old;
      endcase
      for (int b = 0; b < 4; b++) begin
        wr_merged[8*b +: 8] = reg_wr_strb_i[b] ? reg_wr_data_i[8*b +: 8] : wr_old[8*b +: 8];
      end
    end
    we_addr_lo  = wr_table && (wr_word == WordAddrLo);
    we_addr_hi  = wr_table && (wr_word == WordAddrHi);
    we_data     = wr_table && (wr_word == WordData);
    ctl_new     = wr_merged;
    merged_addr_lo    = wr_merged;
    addr_lo_new       = '0;
    addr_lo_new.dword = merged_addr_lo.dword;
  end

  // RAM write ports (one inference template: write enable, no reset).
  always_ff @(posedge clk_i) begin
    if (we_addr_lo) begin
      addr_lo_mem[wr_vec] <= addr_lo_new;
    end
  end
  always_ff @(posedge clk_i) begin
    if (we_addr_hi) begin
      addr_hi_mem[wr_vec] <= wr_merged;
    end
  end
  always_ff @(posedge clk_i) begin
    if (we_data) begin
      data_mem[wr_vec] <= wr_merged;
    end
  end

  // ---- register reads ----
  nic_pkg::msix_offset_t     rd_off;
  nic_pkg::msix_control_t    rd_ctl;
  logic [VecBits-1:0]        rd_vec;
  logic [PbaBits-1:0]        pba_bits;
  logic [15:0]               rd_pba_word;
  nic_pkg::msix_entry_t      rd_entry;

  always_comb begin
    rd_off               = reg_rd_addr_i;
    rd_vec               = VecBits'(rd_off.entry);
    rd_ctl               = '0;
    pba_bits             = '0;
    pba_bits[MsixVectors-1:0] = pend_q;
    rd_pba_word          = (reg_rd_addr_i - PbaOffset) >> 2;
    rd_entry             = '0;
    reg_rd_data_o        = 32'd0;
    if (32'(reg_rd_addr_i) < MsixVectors * 16) begin
      rd_entry.addr_lo = addr_lo_mem[rd_vec];
      rd_entry.addr_hi = addr_hi_mem[rd_vec];
      rd_entry.data    = data_mem[rd_vec];
      rd_ctl.mask      = mask_q[rd_vec];
      rd_entry.control = rd_ctl;
      unique case (rd_off.word)
        WordAddrLo: reg_rd_data_o = rd_entry.addr_lo;
        WordAddrHi: reg_rd_data_o = rd_entry.addr_hi;
        WordData:   reg_rd_data_o = rd_entry.data;
        default:    reg_rd_data_o = rd_entry.control;
      endcase
    end else if (reg_rd_addr_i >= PbaOffset && 32'(rd_pba_word) < PbaWords) begin
      reg_rd_data_o = pba_bits[32*rd_pba_word +: 32];
    end
  end

  // ---- messages ----
  logic                 slot_free;      // the message register can take a new message now
  logic                 pend_found;     // some vector is pending and unmasked
  logic [VecBits-1:0]   pend_vec;
  logic                 irq_in_range, irq_masked;
  logic [VecBits-1:0]   irq_vec;
  logic                 launch;         // a message is made this cycle
  logic [VecBits-1:0]   launch_vec;
  nic_pkg::msix_entry_t launch_entry;

  assign slot_free    = !msg_valid_q || msg_ready_i;
  assign irq_in_range = 32'(irq_vector_i) < MsixVectors;
  assign irq_vec      = VecBits'(irq_vector_i);
  assign irq_masked   = mask_q[irq_vec] || fn_masked_i;

  always_comb begin
    pend_found = 1'b0;
    pend_vec   = '0;
    // The scan runs only while some vector is pending and unmasked (rare: a masked vector).
    if ((pend_q & ~mask_q) != '0 && !fn_masked_i) begin
      for (int v = 0; v < MsixVectors; v++) begin
        if (!pend_found && pend_q[v] && !mask_q[v]) begin
          pend_found = 1'b1;
          pend_vec   = VecBits'(v);
        end
      end
    end
  end

  // A request for an out-of-range vector (a CQ engine bug, caught by an assertion) is accepted
  // and dropped so that it can never stall the CQ engine.
  assign irq_ready_o = !irq_in_range || irq_masked || (slot_free && !pend_found);

  always_comb begin
    launch     = 1'b0;
    launch_vec = pend_vec;
    if (slot_free) begin
      if (pend_found) begin
        launch = 1'b1;
      end else if (irq_valid_i && irq_in_range && !irq_masked) begin
        launch     = 1'b1;
        launch_vec = irq_vec;
      end
    end
    launch_entry = '0;
    if (launch) begin
      launch_entry.addr_lo = addr_lo_mem[launch_vec];
      launch_entry.addr_hi = addr_hi_mem[launch_vec];
      launch_entry.data    = data_mem[launch_vec];
    end
  end

  always_comb begin
    mask_d      = mask_q;
    pend_d      = pend_q;
    msg_valid_d = msg_valid_q;
    msg_addr_d  = msg_addr_q;
    msg_data_d  = msg_data_q;
    msg_vec_d   = msg_vec_q;

    if (msg_valid_q && msg_ready_i) begin
      msg_valid_d = 1'b0;
    end
    if (irq_valid_i && irq_in_range && irq_masked) begin
      pend_d[irq_vec] = 1'b1;
    end
    if (launch) begin
      msg_valid_d = 1'b1;
      msg_addr_d  = {launch_entry.addr_hi, launch_entry.addr_lo};
      msg_data_d  = launch_entry.data;
      msg_vec_d   = launch_vec;
      if (pend_found) begin
        pend_d[pend_vec] = 1'b0;
      end
    end
    // Software writes the control word: the mask (the other bits are reserved).
    if (wr_table && wr_word == WordControl) begin
      mask_d[wr_vec] = ctl_new.mask;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      mask_q      <= {MsixVectors{1'b1}};
      pend_q      <= '0;
      msg_valid_q <= 1'b0;
      msg_addr_q  <= '0;
      msg_data_q  <= '0;
      msg_vec_q   <= '0;
    end else begin
      mask_q      <= mask_d;
      pend_q      <= pend_d;
      msg_valid_q <= msg_valid_d;
      msg_addr_q  <= msg_addr_d;
      msg_data_q  <= msg_data_d;
      msg_vec_q   <= msg_vec_d;
    end
  end

  assign msg_valid_o = msg_valid_q;
  assign msg_addr_o  = msg_addr_q;
  assign msg_data_o  = msg_data_q;

  // A launched entry's control word is known to be unmasked (the launch condition) and its other
  // bits are reserved: the message does not need it.
  logic unused_launch_control;
  assign unused_launch_control = ^launch_entry.control;
  // the formats' reserved bits: offsets are 32-bit aligned, the other control bits and the low
  // address bits read 0
  logic unused_reserved;
  assign unused_reserved = ^{wr_off.rsvd_0, rd_off.rsvd_0, ctl_new.rsvd_1, merged_addr_lo.rsvd_0};

`ifndef SYNTHESIS
  // Immediate assertions in a clocked block: they read the values before the edge (what a
  // concurrent assertion samples) and evaluate a consequent only when its antecedent holds, which
  // costs the simulation far less than Verilator's concurrent assertions (see nic_wqe_fetch).
  logic               msg_held_q;       // the message was offered and not taken last cycle
  logic [63:0]        msg_addr_held_q;
  logic [31:0]        msg_data_held_q;
  logic               pended_q;         // a masked request came last cycle ...
  logic [VecBits-1:0] pended_vec_q;     // ... for this vector

  always_ff @(posedge clk_i) begin
    msg_held_q <= !rst_i && msg_valid_o && !msg_ready_i;
    if (msg_valid_o && !msg_ready_i) begin
      msg_addr_held_q <= msg_addr_o;
      msg_data_held_q <= msg_data_o;
    end
    pended_q     <= !rst_i && irq_valid_i && irq_in_range && irq_masked;
    pended_vec_q <= irq_vec;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // A request names an existing vector.
      if (irq_valid_i) begin
        a_irq_vector_in_range: assert (irq_in_range);
      end
      // A message is only made for a vector that is unmasked when it is made.
      if (launch) begin
        a_msg_only_unmasked: assert (32'(launch_vec) < MsixVectors && !mask_q[launch_vec]
                                     && !fn_masked_i);
      end
      // A pending vector waits only while the message register is busy or the vector is masked.
      if (pend_found && slot_free) begin
        a_pending_unmasked_goes_out: assert (launch && launch_vec == pend_vec);
      end
      // The message holds still until nic_dma_wr takes it.
      if (msg_held_q) begin
        a_msg_stable: assert (msg_valid_o && msg_addr_o == msg_addr_held_q &&
                              msg_data_o == msg_data_held_q);
      end
      // Every masked request becomes a pending bit, so none is lost.
      if (pended_q) begin
        a_masked_irq_pends: assert (pend_q[pended_vec_q]);
      end
    end
  end
`endif

endmodule
