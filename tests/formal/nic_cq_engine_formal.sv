`default_nettype none
// nic_cq_engine_formal: the proof harness of nic_cq_engine (its properties are the engine's own
// `ifdef FORMAL block). It bounds the parameters so the solver's state is small: 2 CQs (so two
// CQs' events meet in one cycle), rings of up to 4 CQEs (so full, wrap and the phase flip are a
// few steps away), 2 MSI-X vectors. Every input is free in every cycle; only the first cycle is
// a reset (the base case of the induction; the inductive step starts from any state that
// satisfies the assertions).
module nic_cq_engine_formal (
  input logic                clk_i,
  input logic                rst_i,
  input logic                us_tick_i,
  input logic                cmd_valid_i,
  input logic [7:0]          cmd_op_i,
  input logic [15:0]         cmd_index_i,
  input logic [255:0]        cmd_args_i,
  input logic                db_valid_i,
  input logic [7:0]          db_cqn_i,
  input logic                db_moderation_i,
  input logic [31:0]         db_data_i,
  input logic                cpl_valid_i,
  input logic [7:0]          cpl_cqn_i,
  input nic_pkg::cqe_t       cpl_cqe_i,
  input logic                wr_ready_i,
  input logic                irq_ready_i,
  input logic [7:0]          state_rd_cqn_i
);
  logic         cpl_ready, wr_valid, irq_valid;
  logic [63:0]  wr_addr;
  logic [255:0] wr_data;
  logic [15:0]  irq_vector;
  logic [1:0]   cq_error;
  logic [31:0]  state_rd_data;

  initial assume (rst_i);

  nic_cq_engine #(
    .NumCqs        (2),
    .LogMaxCqDepth (2),
    .MsixVectors   (2)
  ) u_dut (
    .clk_i           (clk_i),
    .rst_i           (rst_i),
    .us_tick_i       (us_tick_i),
    .cmd_valid_i     (cmd_valid_i),
    .cmd_op_i        (cmd_op_i),
    .cmd_index_i     (cmd_index_i),
    .cmd_args_i      (cmd_args_i),
    .db_valid_i      (db_valid_i),
    .db_cqn_i        (db_cqn_i),
    .db_moderation_i (db_moderation_i),
    .db_data_i       (db_data_i),
    .cpl_valid_i     (cpl_valid_i),
    .cpl_cqn_i       (cpl_cqn_i),
    .cpl_cqe_i       (cpl_cqe_i),
    .cpl_ready_o     (cpl_ready),
    .wr_valid_o      (wr_valid),
    .wr_addr_o       (wr_addr),
    .wr_data_o       (wr_data),
    .wr_ready_i      (wr_ready_i),
    .irq_valid_o     (irq_valid),
    .irq_vector_o    (irq_vector),
    .irq_ready_i     (irq_ready_i),
    .cq_error_o      (cq_error),
    .state_rd_cqn_i  (state_rd_cqn_i),
    .state_rd_data_o (state_rd_data)
  );
endmodule
