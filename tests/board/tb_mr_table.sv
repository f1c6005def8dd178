`default_nettype none
// tb_mr_table: the module bench's top for the MR/MW table (tests/board/test_mr_table.py).
//
// nic_mr_table with its neighbours wired as nic_core wires them: nic_mem_op on ports A, B and
// the write port (the checks and writes of FastRegister / Bind / Invalidate), nic_xl_arb with
// three clients in front of the translation port (client 0 the only one that may invalidate,
// as the responder's dispatcher in nic_core). What nic_core's other modules do is the bench's:
// the host's MR_INIT / MR_FREE commands, the dispatcher (load, hold and finish a memory-op WQE
// once nic_mem_op's registered checks are current, exec / commit), the page list's MTT writes and the three translation clients. Small sizes so
// that random tokens hit live entries and the MTT's top is reached: 8 entries, 32 MTT pages.
module tb_mr_table #(
  parameter int NumMrs     = 8,
  parameter int MttEntries = 32
) (
  input  logic                      clk_i,
  input  logic                      rst_i,
  // host commands (nic_csr)
  input  logic                      cmd_valid_i,
  input  logic [7:0]                cmd_op_i,
  input  logic [15:0]               cmd_index_i,
  input  logic [255:0]              cmd_args_i,
  output logic [2*NumMrs-1:0]       state_o,
  // the dispatcher's side of nic_mem_op
  input  logic                      load_i,
  input  logic [511:0]              head_wqe_i,
  input  logic                      cur_valid_i,
  input  logic [511:0]              cur_wqe_i,
  input  logic [15:0]               qp_pd_i,
  output logic [31:0]               status_o,
  output logic                      ok_o,
  output logic                      ready_o,
  output logic [31:0]               fr_mtt_offset_o,
  input  logic                      exec_i,
  input  logic                      commit_i,
  input  logic [$clog2(MttEntries)-1:0] mtt_base_i,
  // the page list's MTT writes
  input  logic                      mtt_we_i,
  input  logic [$clog2(MttEntries)-1:0] mtt_idx_i,
  input  logic [51:0]               mtt_pfn_i,
  // three translation clients (nic_xl_arb)
  input  logic [2:0]                xc_req_i,
  output logic [2:0]                xc_gnt_o,
  input  logic [95:0]               xc_token_i,
  input  logic [191:0]              xc_va_i,
  input  logic [95:0]               xc_len_i,
  input  logic [47:0]               xc_pd_i,
  input  logic [47:0]               xc_access_i,
  input  logic                      xc_inv0_i,      // client 0's request is an invalidation
  output logic [2:0]                xc_rsp_o,
  output logic [31:0]               xl_status_o,
  output logic [51:0]               xl_pfn_o,
  output logic [11:0]               xl_page_off_o
);

  localparam int MrW   = $clog2(NumMrs);
  localparam int MttAW = $clog2(MttEntries);

  logic [2*NumMrs-1:0] mr_state;
  logic                cmd_wr;
  logic [MrW-1:0]      cmd_wr_idx;
  logic                inv_wr;
  logic [MrW-1:0]      inv_wr_idx;
  logic                a_re, b_re, a_is_mw, a_remote_ok, b_is_mw;
  logic [MrW-1:0]      a_idx, b_idx;
  logic [15:0]         a_pd, b_pd, a_access;
  logic [31:0]         a_max_pages, a_mtt_offset;
  logic [7:0]          a_key;
  logic [63:0]         a_base_va, a_length, a_byte_off;
  logic [MttAW-1:0]    a_mtt_base;
  logic [1:0]          a_state, b_state;
  logic                wr, wr_reg;
  logic [MrW-1:0]      wr_idx, wr_parent;
  logic [1:0]          wr_state;
  logic [7:0]          wr_key;
  logic [63:0]         wr_base_va, wr_length, wr_byte_off;
  logic [15:0]         wr_access;
  logic [MttAW-1:0]    wr_mtt_base;
  logic                xl_valid, xl_inv, xl_rsp_valid;
  logic [31:0]         xl_token, xl_len;
  logic [63:0]         xl_va;
  logic [15:0]         xl_pd, xl_access;
  logic [3:0]          xl_tag, xl_rsp_tag;

  assign state_o = mr_state;

  nic_mem_op #(
    .NumMrs     (NumMrs),
    .MttEntries (MttEntries)
  ) u_mem_op (
    .load_i            (load_i),
    .head_wqe_i        (head_wqe_i),
    .cur_valid_i       (cur_valid_i),
    .cur_wqe_i         (cur_wqe_i),
    .qp_pd_i           (qp_pd_i),
    .status_o          (status_o),
    .ok_o              (ok_o),
    .ready_o           (ready_o),
    .fr_mtt_offset_o   (fr_mtt_offset_o),
    .exec_i            (exec_i),
    .commit_i          (commit_i),
    .mtt_base_i        (mtt_base_i),
    .clk_i             (clk_i),
    .rst_i             (rst_i),
    .mr_state_i        (mr_state),
    .mr_cmd_wr_i       (cmd_wr),
    .mr_cmd_wr_idx_i   (cmd_wr_idx),
    .mr_inv_wr_i       (inv_wr),
    .mr_inv_wr_idx_i   (inv_wr_idx),
    .mr_a_re_o         (a_re),
    .mr_a_idx_o        (a_idx),
    .mr_a_pd_i         (a_pd),
    .mr_a_is_mw_i      (a_is_mw),
    .mr_a_remote_ok_i  (a_remote_ok),
    .mr_a_max_pages_i  (a_max_pages),
    .mr_a_mtt_offset_i (a_mtt_offset),
    .mr_a_key_i        (a_key),
    .mr_a_base_va_i    (a_base_va),
    .mr_a_length_i     (a_length),
    .mr_a_byte_off_i   (a_byte_off),
    .mr_a_access_i     (a_access),
    .mr_a_mtt_base_i   (a_mtt_base),
    .mr_a_state_i      (a_state),
    .mr_b_re_o         (b_re),
    .mr_b_idx_o        (b_idx),
    .mr_b_pd_i         (b_pd),
    .mr_b_is_mw_i      (b_is_mw),
    .mr_b_state_i      (b_state),
    .mr_wr_o           (wr),
    .mr_wr_idx_o       (wr_idx),
    .mr_wr_state_o     (wr_state),
    .mr_wr_reg_o       (wr_reg),
    .mr_wr_key_o       (wr_key),
    .mr_wr_base_va_o   (wr_base_va),
    .mr_wr_length_o    (wr_length),
    .mr_wr_byte_off_o  (wr_byte_off),
    .mr_wr_access_o    (wr_access),
    .mr_wr_mtt_base_o  (wr_mtt_base),
    .mr_wr_parent_o    (wr_parent)
  );

  nic_mr_table #(
    .NumMrs     (NumMrs),
    .MttEntries (MttEntries),
    .XlTagW     (4)
  ) u_mr_table (
    .clk_i          (clk_i),
    .rst_i          (rst_i),
    .cmd_valid_i    (cmd_valid_i),
    .cmd_op_i       (cmd_op_i),
    .cmd_index_i    (cmd_index_i),
    .cmd_args_i     (cmd_args_i),
    .state_o        (mr_state),
    .cmd_wr_o       (cmd_wr),
    .cmd_wr_idx_o   (cmd_wr_idx),
    .inv_wr_o       (inv_wr),
    .inv_wr_idx_o   (inv_wr_idx),
    .a_re_i         (a_re),
    .a_idx_i        (a_idx),
    .a_pd_o         (a_pd),
    .a_is_mw_o      (a_is_mw),
    .a_remote_ok_o  (a_remote_ok),
    .a_max_pages_o  (a_max_pages),
    .a_mtt_offset_o (a_mtt_offset),
    .a_key_o        (a_key),
    .a_base_va_o    (a_base_va),
    .a_length_o     (a_length),
    .a_byte_off_o   (a_byte_off),
    .a_access_o     (a_access),
    .a_mtt_base_o   (a_mtt_base),
    .a_state_o      (a_state),
    .b_re_i         (b_re),
    .b_idx_i        (b_idx),
    .b_pd_o         (b_pd),
    .b_is_mw_o      (b_is_mw),
    .b_state_o      (b_state),
    .wr_i           (wr),
    .wr_idx_i       (wr_idx),
    .wr_state_i     (wr_state),
    .wr_reg_i       (wr_reg),
    .wr_key_i       (wr_key),
    .wr_base_va_i   (wr_base_va),
    .wr_length_i    (wr_length),
    .wr_byte_off_i  (wr_byte_off),
    .wr_access_i    (wr_access),
    .wr_mtt_base_i  (wr_mtt_base),
    .wr_parent_i    (wr_parent),
    .mtt_we_i       (mtt_we_i),
    .mtt_idx_i      (mtt_idx_i),
    .mtt_pfn_i      (mtt_pfn_i),
    .xl_valid_i     (xl_valid),
    .xl_token_i     (xl_token),
    .xl_va_i        (xl_va),
    .xl_len_i       (xl_len),
    .xl_pd_i        (xl_pd),
    .xl_access_i    (xl_access),
    .xl_inv_i       (xl_inv),
    .xl_tag_i       (xl_tag),
    .xl_valid_o     (xl_rsp_valid),
    .xl_tag_o       (xl_rsp_tag),
    .xl_status_o    (xl_status_o),
    .xl_pfn_o       (xl_pfn_o),
    .xl_page_off_o  (xl_page_off_o)
  );

  nic_xl_arb #(
    .NumClients(3)
  ) u_xl_arb (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .req_i      (xc_req_i),
    .gnt_o      (xc_gnt_o),
    .token_i    (xc_token_i),
    .va_i       (xc_va_i),
    .len_i      (xc_len_i),
    .pd_i       (xc_pd_i),
    .access_i   (xc_access_i),
    .inv_i      ({2'b00, xc_inv0_i}),
    .rsp_valid_o(xc_rsp_o),
    .xl_valid_o (xl_valid),
    .xl_token_o (xl_token),
    .xl_va_o    (xl_va),
    .xl_len_o   (xl_len),
    .xl_pd_o    (xl_pd),
    .xl_access_o(xl_access),
    .xl_inv_o   (xl_inv),
    .xl_tag_o   (xl_tag),
    .xl_valid_i (xl_rsp_valid),
    .xl_tag_i   (xl_rsp_tag)
  );

endmodule
